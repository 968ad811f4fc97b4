// The agent form's text fields and the Agent they stand for.

import type { Agent } from '../api';
import { formatEnv, parseEnv } from './format';
import { joinWords, splitWords } from './shellwords';

export interface AgentDraft {
  id: string;
  label: string;
  command: string;
  args: string;
  promptArgs: string;
  promptTransport: string;
  resumeArgs: string;
  env: string;
}

export type DraftErrors = Partial<Record<keyof AgentDraft, string>>;

export function toDraft(a: Agent): AgentDraft {
  return {
    id: a.id,
    label: a.label,
    command: a.command,
    args: joinWords(a.args),
    promptArgs: joinWords(a.promptArgs),
    promptTransport: a.promptTransport || 'argv',
    resumeArgs: joinWords(a.resumeArgs),
    env: formatEnv(a.env),
  };
}

/**
 * The agent the draft describes (base supplies what the form does not show: session id
 * args, tracking, …), or the fields that do not parse. Checks only what the page can know;
 * the host validates the rest and answers with one line.
 */
export function fromDraft(base: Agent, d: AgentDraft): { agent: Agent; errors: null } | { agent: null; errors: DraftErrors } {
  const errors: DraftErrors = {};
  const words = (k: 'args' | 'promptArgs' | 'resumeArgs'): string[] => {
    const r = splitWords(d[k]);
    if (r.ok) return r.words;
    errors[k] = r.error;
    return [];
  };
  const args = words('args');
  const promptArgs = words('promptArgs');
  const resumeArgs = words('resumeArgs');
  const env = parseEnv(d.env);
  if (!env.ok) errors.env = env.error;
  if (Object.keys(errors).length > 0 || !env.ok) return { agent: null, errors };
  return {
    agent: {
      ...base,
      id: d.id.trim(),
      label: d.label.trim(),
      command: d.command.trim(),
      args,
      promptArgs,
      promptTransport: d.promptTransport,
      resumeArgs,
      env: env.env,
    },
    errors: null,
  };
}

/** True when a and b differ in anything the form edits. */
export function editedFields(a: Agent, b: Agent): boolean {
  const pick = (x: Agent) =>
    JSON.stringify([
      x.id,
      x.label,
      x.command,
      x.args ?? [],
      x.promptArgs ?? [],
      x.promptTransport || 'argv',
      x.resumeArgs ?? [],
      formatEnv(x.env),
    ]);
  return pick(a) !== pick(b);
}

/** A new custom agent before its first save. */
export function blankAgent(): Agent {
  return {
    id: '',
    label: '',
    command: '',
    args: [],
    promptArgs: [],
    promptTransport: 'argv',
    resumeArgs: [],
    env: {},
    sessionIdArgs: [],
    sessionIdKind: '',
    tracking: 'none',
    builtin: false,
    edited: false,
    found: false,
  };
}

/**
 * The form field a host validation error is about ("agent codex: command … has white
 * space", "agent id … must be …"), so it can show under that field; null for the rest.
 */
export function serverErrorField(message: string): keyof AgentDraft | null {
  if (/^agent id /.test(message)) return 'id';
  const m = /^agent [^:\s]+: (.*)$/.exec(message);
  if (!m) return null;
  const rest = m[1]!;
  const fields: [RegExp, keyof AgentDraft][] = [
    [/^label /, 'label'],
    [/^command /, 'command'],
    [/^prompt transport /, 'promptTransport'],
    [/^args: /, 'args'],
    [/^prompt args: /, 'promptArgs'],
    [/^resume args: /, 'resumeArgs'],
    [/^env /, 'env'],
  ];
  for (const [re, field] of fields) if (re.test(rest)) return field;
  return null;
}
