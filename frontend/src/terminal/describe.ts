// How a pane names its terminal and says what state it is in.

import type { Terminal } from '../api';

export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return path.startsWith('/') ? '/' : '';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/**
 * OSC title, else the foreground command, else the cwd's last element: the
 * directory the shell reported (OSC 7, cwd) or else the one the host read.
 */
export function paneTitle(t: Terminal | undefined, oscTitle: string | undefined, cwd?: string): string {
  if (oscTitle && oscTitle.trim()) return oscTitle.trim();
  if (t?.foreground) return t.foreground;
  const dir = cwd || t?.cwd;
  if (dir) return basename(dir) || dir;
  const argv0 = t?.argv?.[0];
  return argv0 ? basename(argv0) : 'terminal';
}

export type StateKind = 'running' | 'exited' | 'killed' | 'lost' | 'closed' | 'unknown';

export interface PaneState {
  kind: StateKind;
  label: string;
}

export function signalName(sig: string): string {
  return /^[A-Z0-9]+$/.test(sig) && !/^\d+$/.test(sig) && !sig.startsWith('SIG') ? 'SIG' + sig : sig;
}

export function terminalState(t: Terminal | undefined): PaneState {
  if (!t) return { kind: 'unknown', label: '' };
  switch (t.status) {
    case 'running':
      return { kind: 'running', label: 'running' };
    case 'exited':
      if (t.exitSignal) return { kind: 'killed', label: `killed (${signalName(t.exitSignal)})` };
      if (t.exitCode !== undefined && t.exitCode !== null) return { kind: 'exited', label: `exited (status ${t.exitCode})` };
      return { kind: 'exited', label: 'exited' };
    case 'lost':
      return { kind: 'lost', label: 'lost' };
    case 'closed':
      return { kind: 'closed', label: 'closed' };
    default:
      return { kind: 'unknown', label: t.status };
  }
}

/** "restored" when this terminal shows scrollback from an earlier one, with when that one ended (local time). */
export function restoredLabel(t: Terminal | undefined): { label: string; detail: string } | null {
  if (!t?.restoredFrom) return null;
  const when = t.restoredEndedAt ? new Date(t.restoredEndedAt) : null;
  const detail =
    when && !isNaN(when.getTime())
      ? `Output above the divider is from before the terminal ended at ${when.toLocaleString()}`
      : 'Output above the divider is from before the terminal ended';
  return { label: 'restored', detail };
}

/** Why a pane cannot deliver input now, as its pill and its notice line say it; null when it can. */
export interface PaneOffline {
  /** Replaces the "running" pill. */
  pill: string;
  line: string;
}

export function paneOffline(
  conn: string,
  daemon: { state: string } | null | undefined,
  t: Terminal | undefined,
): PaneOffline | null {
  if (conn !== 'open') return { pill: 'disconnected', line: 'input paused — reconnecting' };
  if (daemon?.state === 'restarting') return { pill: 'restoring', line: 'input paused — the pty daemon is restarting' };
  if (daemon?.state === 'failed') return { pill: 'daemon down', line: 'input paused — the pty daemon is down' };
  if (t?.status === 'lost') return { pill: 'restoring', line: 'input paused — restoring this terminal' };
  // A remote host's link is down: the agent keeps running there, so this is "disconnected", never an end.
  if (t?.link && t.status === 'running') return { pill: 'disconnected', line: `${t.link} · input paused` };
  return null;
}

/**
 * The pane's line about input it holds or cannot deliver, or about an attach still waiting for
 * its answer; null when there is nothing to say. Held input is said even while the pane is not
 * offline: a pane whose attach has not finished (or never does) holds what is typed, and that
 * must not be silent. Nor is a slow attach: its pane is blank or shows an old screen meanwhile.
 */
export function heldLine(offline: PaneOffline | null, held: number, attaching = false): string | null {
  const bytes = `${held} ${held === 1 ? 'byte' : 'bytes'} typed`;
  if (offline) return held > 0 ? `${offline.line} · ${bytes}, sent when back` : offline.line;
  if (held > 0) return `${bytes}, held until this pane is attached to its terminal`;
  return attaching ? 'attaching to this pane\'s terminal — waiting for the host to answer' : null;
}
