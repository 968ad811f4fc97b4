// What the page shows about agents, as pure functions of the host's agent states
// (backend/attention.Derive, pushed on binding events as agentState): the pane's pill, the
// tab's badge, the window title, and whether a state change raises a notification.
// docs/decisions.md "Agent attention in the page".

import type { AgentState, Binding } from '../api';

export type AgentStateName = 'starting' | 'working' | 'needs-input' | 'idle' | 'failed-turn' | 'interrupted' | 'exited';

/** The backend's StaleAfter: a working turn with no hook event this long is "no activity for N min". */
export const STALE_AFTER_MS = 10 * 60 * 1000;

/** A pane header's agent pill. */
export interface AgentPill {
  /** The state (a CSS class and data-agent-state). */
  state: AgentStateName;
  /** What the pill says. */
  label: string;
  /** Its tooltip. */
  detail: string;
  stale: boolean;
}

const LABELS: Record<AgentStateName, string> = {
  starting: 'starting',
  working: 'working',
  'needs-input': 'needs input',
  idle: 'idle',
  'failed-turn': 'failed turn',
  interrupted: 'interrupted',
  exited: 'exited',
};

const DETAILS: Record<AgentStateName, string> = {
  starting: 'The agent is starting; no prompt yet',
  working: 'The agent is working on a turn',
  'needs-input': 'The agent is waiting for you: a permission or a question',
  idle: 'The agent waits for a prompt (its turn finished, or it has just started or resumed)',
  'failed-turn': 'The turn failed (an API error, out of quota)',
  interrupted: 'The agent was killed or its terminal ended',
  exited: 'The agent ended',
};

export function isStateName(s: string | undefined): s is AgentStateName {
  return !!s && Object.prototype.hasOwnProperty.call(LABELS, s);
}

/** What the page knows of one agent: the host's AgentState, updated by binding events. */
export type AgentInfo = Pick<AgentState, 'terminalId' | 'agentLabel' | 'state'> &
  Partial<AgentState> & {
    lastEventAt?: string;
    /** The first prompt, when this page started the agent with one. */
    firstPrompt?: string;
  };

/**
 * The pill of a pane whose terminal's agent is a; null when the terminal has no agent state
 * (a shell keeps its terminal pill). A working turn silent for STALE_AFTER_MS or more says
 * "no activity for N min" — never "working" for hours.
 */
export function agentPill(a: AgentInfo | undefined, now: number): AgentPill | null {
  if (!a || !isStateName(a.state)) return null;
  const state = a.state;
  if (state === 'working') {
    const quiet = quietMs(a, now);
    if (quiet >= STALE_AFTER_MS) {
      const min = Math.floor(quiet / 60000);
      return { state, label: `no activity for ${min} min`, detail: `Working, but no event from the agent for ${min} min: it may be stuck`, stale: true };
    }
  }
  const detail = a.detail && a.state !== 'working' ? capital(a.detail) : DETAILS[state];
  return { state, label: LABELS[state], detail, stale: false };
}

function quietMs(a: AgentInfo, now: number): number {
  // The host's own figure (agents.states) is as of its read; the page's clock moves it on.
  const last = Math.max(time(a.lastEventAt), time(a.since));
  if (!last) return a.quietForSec ? a.quietForSec * 1000 : 0;
  return now - last;
}

function time(s: string | undefined | null): number {
  if (!s) return 0;
  const t = Date.parse(s);
  return isNaN(t) ? 0 : t;
}

function capital(s: string): string {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

/** How urgent a state is for the tab badge and the title (higher first); 0: no badge. */
export function urgency(state: string | undefined): number {
  switch (state) {
    case 'needs-input':
      return 4;
    case 'failed-turn':
      return 3;
    case 'interrupted':
      return 2;
    case 'working':
      return 1;
    default:
      return 0;
  }
}

/** A tab's badge. */
export interface TabBadge {
  /** needs-input, failed-turn, interrupted, working, or 'bell' (a bell rang in a pane not seen since). */
  kind: AgentStateName | 'bell';
  label: string;
}

/** The badge of a tab from its panes' agent states and unseen bells: the most urgent. */
export function tabBadge(states: readonly (string | undefined)[], bell: boolean): TabBadge | null {
  let best: string | undefined;
  for (const s of states) if (urgency(s) > urgency(best)) best = s;
  if (best === 'needs-input' || best === 'failed-turn' || best === 'interrupted') {
    const n = states.filter((s) => s === best).length;
    const what = LABELS[best as AgentStateName];
    return { kind: best as AgentStateName, label: n > 1 ? `${n} agents: ${what}` : `An agent: ${what}` };
  }
  if (bell) return { kind: 'bell', label: 'A bell rang in this tab' };
  if (best === 'working') return { kind: 'working', label: 'An agent is working' };
  return null;
}

/**
 * The window title: the active pane's title, with "(N needs input) " in front while agents
 * wait for the user, and the app's name last (so the window is findable as "… — Reprise").
 */
export function windowTitle(paneTitle: string, states: readonly (string | undefined)[]): string {
  const waiting = states.filter((s) => s === 'needs-input').length;
  const prefix = waiting > 0 ? `(${waiting} needs input) ` : '';
  const t = paneTitle.trim();
  return `${prefix}${t ? `${t} — ` : ''}Reprise`;
}

/** Settings → Notifications, "notify.when". */
export type NotifyWhen = 'off' | 'needs-input' | 'needs-input-and-finished';
export const NOTIFY_WHEN_DEFAULT: NotifyWhen = 'needs-input-and-finished';

export function parseNotifyWhen(v: string | null | undefined): NotifyWhen {
  return v === 'off' || v === 'needs-input' || v === 'needs-input-and-finished' ? v : NOTIFY_WHEN_DEFAULT;
}

/** What a state change may raise. */
export type NotifyKind = 'needs-input' | 'finished' | 'failed';

/**
 * One terminal's turn tracking for notifications. A turn starts when the agent goes to working
 * or needs-input from anything else (starting, idle, failed-turn, unknown); it finishes on idle
 * or failed-turn. Each turn raises at most one notification of each kind (the host's
 * subagent events never reach the state, so a subagent cannot raise one).
 */
export interface TurnTrack {
  state?: string;
  turn: number;
  /** Kinds already raised in this turn. */
  raised: NotifyKind[];
}

export interface NotifyDecision {
  track: TurnTrack;
  /** What to raise now; null: nothing. */
  raise: NotifyKind | null;
}

/**
 * The notify rule: given the terminal's tracking so far and its new state, whether to raise a
 * notification — not when the pane is in front of the user, not when the setting excludes it,
 * never twice for the same turn and kind. seed: the first state heard for a terminal (page
 * load, reconnect), which is never news.
 */
export function decideNotify(prev: TurnTrack | undefined, next: string, opts: { inFront: boolean; when: NotifyWhen; seed?: boolean }): NotifyDecision {
  const cur: TurnTrack = prev ?? { turn: 0, raised: [] };
  if (cur.state === next) return { track: cur, raise: null };
  const active = next === 'working' || next === 'needs-input';
  const wasActive = cur.state === 'working' || cur.state === 'needs-input';
  let track: TurnTrack = { ...cur, state: next };
  if (active && !wasActive) track = { state: next, turn: cur.turn + 1, raised: [] };
  if (opts.seed) {
    // The state the page found: not news, but a turn found open can still finish (and raise).
    return { track: { ...track, raised: next === 'needs-input' ? ['needs-input'] : track.raised }, raise: null };
  }
  let kind: NotifyKind | null = null;
  if (next === 'needs-input') kind = 'needs-input';
  else if (wasActive && next === 'idle') kind = 'finished';
  else if (wasActive && next === 'failed-turn') kind = 'failed';
  if (!kind || track.raised.includes(kind)) return { track, raise: null };
  // Seen is as good as raised: a turn the user watched does not notify later for that kind.
  track = { ...track, raised: [...track.raised, kind] };
  if (opts.inFront || opts.when === 'off' || (opts.when === 'needs-input' && kind !== 'needs-input')) return { track, raise: null };
  return { track, raise: kind };
}

/** A notification's title and body for an agent. */
export function notificationText(kind: NotifyKind, a: Pick<AgentInfo, 'agentLabel' | 'cwd'>): { title: string; body: string } {
  const label = a.agentLabel || 'An agent';
  const where = a.cwd ? basename(a.cwd) : '';
  const title =
    kind === 'needs-input' ? `${label} needs your input` : kind === 'failed' ? `${label}: the turn failed` : `${label} finished its turn`;
  return { title, body: where ? `in ${where}` : '' };
}

function basename(p: string): string {
  const t = p.replace(/\/+$/, '');
  return t.slice(t.lastIndexOf('/') + 1) || p;
}

/** The page's agent info for a binding event: the host's agentState on it, over what was known. */
export function infoFromBinding(b: Binding, prev: AgentInfo | undefined): AgentInfo | null {
  if (!b.agentState) return null; // history: no pane shows it
  const changed = prev?.state !== b.agentState;
  return {
    ...prev,
    terminalId: b.terminalId,
    paneId: b.paneId || prev?.paneId,
    agentId: b.agentId,
    agentLabel: b.agentLabel || prev?.agentLabel || b.agentId,
    sessionId: b.sessionId,
    cwd: b.cwd || prev?.cwd,
    state: b.agentState,
    since: changed ? b.lastEventAt || b.endedAt || b.startedAt : prev?.since,
    lastEventAt: b.lastEventAt,
    // The host's words belong to the state it read; a new state is described here.
    detail: changed ? '' : (prev?.detail ?? ''),
    stale: false,
    quietForSec: 0,
  };
}
