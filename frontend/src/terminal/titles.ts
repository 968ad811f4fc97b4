// A pane's title across a change of its terminal. When a new terminal takes a
// pane (a daemon recovery, a restart, a resume), the page hears of the pane's
// new terminal id before it knows anything about that terminal; the title then
// stays what it was instead of falling back to "terminal" until the attach
// answers.

import type { Terminal } from '../api';
import { paneTitle } from './describe';

/** The title for a pane: the terminal's, or prev while nothing is known of the terminal yet. */
export function titleFor(prev: string | undefined, t: Terminal | undefined, osc: string | undefined, agent?: string, cwd?: string): string {
  if (agent) return agent;
  if (!t && !(osc && osc.trim()) && !cwd && prev) return prev;
  return paneTitle(t, osc, cwd);
}

/**
 * The directory of an OSC 7 report (`file://host/path`, percent-encoded, as
 * bash's vte.sh, zsh, fish and PowerShell send it), or null when data is not one.
 * The host part is ignored: over ssh it names the remote machine, and the path
 * is still the right thing to title the pane with.
 */
export function parseOsc7(data: string): string | null {
  const m = /^file:\/\/[^/]*(\/.*)$/.exec(data.trim());
  if (!m || !m[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/** The directory a pane is in: the shell's own report (OSC 7) wins over the host's /proc reading. */
export function paneCwd(t: Terminal | undefined, reported: string | undefined): string | undefined {
  return reported || t?.cwd || undefined;
}

export class PaneTitles {
  private last = new Map<string, string>();

  /** titleFor with the pane's last title, which it then remembers. */
  title(paneId: string, t: Terminal | undefined, osc: string | undefined, agent?: string, cwd?: string): string {
    const title = titleFor(this.last.get(paneId), t, osc, agent, cwd);
    this.last.set(paneId, title);
    return title;
  }

  /** The pane's last title, without computing a new one. */
  peek(paneId: string): string | undefined {
    return this.last.get(paneId);
  }
}

/** The page's one memory of pane titles (the pane header and its tab both read it). */
export const paneTitles = new PaneTitles();
