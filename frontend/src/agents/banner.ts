// The resume banner of a pane, as a pure function of the binding (from the host),
// the page's own resume request for it, and whether the user dismissed it.
//
//   candidate ──Resume──▶ resuming ──ok──▶ (binding: resumed) none
//       ▲                    │
//       └──────Retry── failed ◀──error──┘
//   any ──dismiss──▶ none (remembered per terminal + session)
//   any ──binding no longer a candidate (resumed elsewhere, new session)──▶ none
//   candidate with the host's resumeError (an automatic resume failed) ──▶ failed (Retry)
//   not a candidate: unavailable, saying why (never a Resume the host knows cannot work); with
//   the binding's recreateCwd (the folder is gone, the agent keeps conversations by folder):
//   unavailable ──Recreate folder and resume──▶ resuming ──error──▶ failed (Retry recreates too)

import type { Binding, Terminal } from '../api';

/** The page's resume request for one terminal. */
export type ResumeState = { phase: 'resuming' } | { phase: 'failed'; reason: string };

export type BannerView =
  | { kind: 'none' }
  | { kind: 'candidate'; label: string }
  | { kind: 'resuming'; label: string }
  | { kind: 'failed'; label: string; reason: string; recreate?: string }
  | { kind: 'unavailable'; label: string; reason: string; recreate?: string };

export const NO_BANNER: BannerView = { kind: 'none' };

export function agentLabel(b: Binding): string {
  return b.agentLabel || b.agentId || 'The agent';
}

/** What the banner of a pane whose terminal has binding b shows. */
export function bannerView(b: Binding | undefined, resume: ResumeState | undefined, dismissed: boolean): BannerView {
  if (!b) return NO_BANNER;
  const label = agentLabel(b);
  // In flight: the host claims the candidate first (it stops being one), then
  // launches; keep saying "Resuming…" until the answer, whatever the binding says.
  if (resume?.phase === 'resuming') return { kind: 'resuming', label };
  if (dismissed) return NO_BANNER;
  if (b.candidate) {
    if (resume?.phase === 'failed') return { kind: 'failed', label, reason: resume.reason };
    // The host's own last attempt (an automatic resume) failed.
    if (b.resumeError) return { kind: 'failed', label, reason: failureReason(label, b.resumeError) };
    return { kind: 'candidate', label };
  }
  // A conversation that was lost and can't come back says why; an agent that was never
  // prompted had no conversation to lose, so its pane says nothing.
  if (b.endReason === 'terminal-exited' && b.unavailable && b.prompted) {
    const recreate = b.recreateCwd?.trim();
    if (!recreate) return { kind: 'unavailable', label, reason: b.unavailable };
    // The way forward the host offers; a failed attempt at it can be retried.
    if (resume?.phase === 'failed') return { kind: 'failed', label, reason: resume.reason, recreate };
    return { kind: 'unavailable', label, reason: b.unavailable, recreate };
  }
  return NO_BANNER;
}

/** The key a dismissal is remembered under: one terminal's one session. */
export function dismissKey(b: Pick<Binding, 'terminalId' | 'sessionId'>): string {
  return `${b.terminalId}/${b.sessionId ?? ''}`;
}

/**
 * The binding a pane's banner is about: its terminal's own, or, when the terminal
 * is a fresh shell that took over a lost one (cold respawn: restoredFrom), the lost
 * terminal's interrupted one.
 */
export function paneBinding(
  terminalId: string,
  terminals: Readonly<Record<string, Terminal>>,
  bindings: Readonly<Record<string, Binding>>,
): Binding | undefined {
  const own = bindings[terminalId];
  if (own) return own;
  let id = terminals[terminalId]?.restoredFrom;
  for (let hops = 0; id && hops < 8; hops++) {
    const b = bindings[id];
    if (b) return b.endReason === 'terminal-exited' ? b : undefined;
    id = terminals[id]?.restoredFrom;
  }
  return undefined;
}

/** The agent's label when an agent is running in the terminal now. */
export function liveAgentLabel(b: Binding | undefined): string | undefined {
  if (!b || b.endReason || b.endedAt) return undefined;
  return agentLabel(b);
}

/** The host's error line without a "couldn't resume <label>:" the banner already says. */
export function failureReason(label: string, message: string): string {
  const prefix = `couldn't resume ${label}:`;
  const m = message.trim();
  return m.toLowerCase().startsWith(prefix.toLowerCase()) ? m.slice(prefix.length).trim() : m;
}

/**
 * Dismissals kept in web storage (sessionStorage for resume prompts), so a reload does not bring
 * them back. keep, when set, bounds how many (the newest) are remembered.
 */
export class Dismissals {
  private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  private readonly key: string;
  private readonly keep: number | undefined;

  constructor(storage: Pick<Storage, 'getItem' | 'setItem'> | null, key = 'reprise.dismissedResume', keep?: number) {
    this.storage = storage;
    this.key = key;
    this.keep = keep;
  }

  load(): Record<string, true> {
    try {
      const raw = this.storage?.getItem(this.key);
      const list: unknown = raw ? JSON.parse(raw) : [];
      const out: Record<string, true> = {};
      if (Array.isArray(list)) for (const k of list) if (typeof k === 'string') out[k] = true;
      return out;
    } catch {
      return {};
    }
  }

  save(keys: Readonly<Record<string, true>>): void {
    try {
      const list = Object.keys(keys);
      this.storage?.setItem(this.key, JSON.stringify(this.keep === undefined ? list : list.slice(-this.keep)));
    } catch {
      // Storage full or denied: dismissals last until the page closes.
    }
  }
}
