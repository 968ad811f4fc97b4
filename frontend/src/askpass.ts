// ssh's prompts for remote hosts (docs/remote.md "Prompts never hang"): the host sends each as an
// "askpass" event, open and later closed; the page keeps the open ones in arrival order and shows
// the first in AskpassDialog.

import type { AskpassPrompt } from './api';

/** The open prompts after event p: an open one is added (or updated), a closed one removed. */
export function withPrompt(list: readonly AskpassPrompt[], p: AskpassPrompt): readonly AskpassPrompt[] {
  const rest = list.filter((x) => x.id !== p.id);
  if (!p.open) return rest.length === list.length ? list : rest;
  const i = list.findIndex((x) => x.id === p.id);
  if (i >= 0) return list.map((x) => (x.id === p.id ? p : x));
  return [...rest, p];
}

/** The open prompts as askpass.pending lists them, merged with what events already said. */
export function mergePending(list: readonly AskpassPrompt[], pending: readonly AskpassPrompt[]): readonly AskpassPrompt[] {
  let out = list;
  for (const p of pending) if (!out.some((x) => x.id === p.id)) out = [...out, { ...p, open: true }];
  return out;
}

/** A yes/no question (an unknown host key): answered with Accept / Reject, not typed. */
export function isConfirm(p: AskpassPrompt): boolean {
  return p.kind === 'confirm';
}
