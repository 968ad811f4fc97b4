// What a pane says about a resume the host launched in its terminal, as a pure function of the
// terminal's binding. The host records the outcome (docs/decisions.md, "Resume outcome"): it is
// "resuming" until the agent itself confirms, so the page never says "resumed" on its own.

import type { Binding, ResumeOutcome } from '../api';
import { agentLabel } from './banner';

/** How long a "Resumed …" notice stays in the pane (it stays in the restore summary). */
export const RESUMED_VISIBLE_MS = 8000;

export interface OutcomeNotice {
  outcome: ResumeOutcome;
  text: string;
  /** Hides on its own this long after the outcome (null: stays until dismissed, or until it changes). */
  autoHideMs: number | null;
  /** Offers a dismiss button. */
  dismissible: boolean;
  /** Offers "Open Sessions" (to retry from there). */
  openSessions: boolean;
}

const OUTCOMES: readonly string[] = ['resuming', 'resumed', 'fresh', 'failed', 'unconfirmed'];

export function isOutcome(v: unknown): v is ResumeOutcome {
  return typeof v === 'string' && OUTCOMES.includes(v);
}

/** The first 8 characters of a session id (enough to tell sessions apart at a glance). */
export function shortId(id: string | undefined | null): string {
  const s = (id ?? '').trim();
  return s.length > 8 ? s.slice(0, 8) : s;
}

/** How long the page itself says "Resuming…" for a resume it asked for, while the host's outcome is not in. */
export const LAUNCH_PENDING_MS = 30_000;

/**
 * The notice for a resume the page launched in a pane whose terminal's binding has no outcome
 * yet (the moment between the new terminal taking the pane and the host's "resuming" reaching
 * the page): "Resuming…" — never more than that.
 */
export function launchNotice(
  launch: { label: string; terminalId?: string; at: number } | undefined,
  terminalId: string,
  b: Binding | undefined,
  now: number,
): OutcomeNotice | null {
  if (!launch || now - launch.at > LAUNCH_PENDING_MS) return null;
  if (launch.terminalId !== undefined && launch.terminalId !== terminalId) return null;
  if (b && (b.outcome || b.endReason || b.endedAt)) return null;
  const label = launch.label;
  return { outcome: 'resuming', text: `Resuming ${label}… (waiting for ${label} to confirm)`, autoHideMs: null, dismissible: false, openSessions: false };
}

/** The notice for binding b's resume outcome; null when there is none (or an unknown one). */
export function outcomeNotice(b: Binding | undefined): OutcomeNotice | null {
  if (!b || !isOutcome(b.outcome)) return null;
  const label = agentLabel(b);
  const detail = (b.outcomeDetail ?? '').trim();
  switch (b.outcome) {
    case 'resuming':
      return { outcome: 'resuming', text: `Resuming ${label}… (waiting for ${label} to confirm)`, autoHideMs: null, dismissible: false, openSessions: false };
    case 'resumed': {
      const id = shortId(b.resumeOf || b.sessionId);
      return {
        outcome: 'resumed',
        text: id ? `Resumed ${label} session ${id}` : `Resumed ${label}`,
        autoHideMs: RESUMED_VISIBLE_MS,
        dismissible: true,
        openSessions: false,
      };
    }
    case 'fresh':
      return {
        outcome: 'fresh',
        text: detail ? `${label} started a fresh session: ${detail}` : `${label} started a fresh session`,
        autoHideMs: null,
        dismissible: true,
        openSessions: false,
      };
    case 'failed':
      return {
        outcome: 'failed',
        text: detail ? `Couldn't resume ${label}: ${detail}` : `Couldn't resume ${label}`,
        autoHideMs: null,
        dismissible: true,
        openSessions: true,
      };
    case 'unconfirmed':
      return {
        outcome: 'unconfirmed',
        text: detail ? `${label} started; Reprise can't confirm it resumed (${detail})` : `${label} started; Reprise can't confirm it resumed`,
        autoHideMs: null,
        dismissible: true,
        openSessions: false,
      };
  }
}

/**
 * When an auto-hiding notice goes: autoHideMs after the outcome was recorded (outcomeAt), or
 * after the page first showed it when that is earlier or outcomeAt is unusable (missing, or
 * ahead of the page's clock). null: it does not hide on its own.
 */
export function hideAt(notice: OutcomeNotice, outcomeAt: string | null | undefined, firstSeen: number): number | null {
  if (notice.autoHideMs === null) return null;
  const at = outcomeAt ? new Date(outcomeAt).getTime() : NaN;
  const start = !isNaN(at) && at <= firstSeen ? at : firstSeen;
  return start + notice.autoHideMs;
}

/** The key an outcome notice's dismissal is remembered under (with the banner dismissals). */
export function outcomeDismissKey(b: Pick<Binding, 'terminalId' | 'outcome'>): string {
  return `outcome:${b.terminalId}/${b.outcome ?? ''}`;
}
