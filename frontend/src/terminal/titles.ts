// A pane's title across a change of its terminal. When a new terminal takes a
// pane (a daemon recovery, a restart, a resume), the page hears of the pane's
// new terminal id before it knows anything about that terminal; the title then
// stays what it was instead of falling back to "terminal" until the attach
// answers.

import type { Terminal } from '../api';
import { paneTitle } from './describe';

/** The title for a pane: the terminal's, or prev while nothing is known of the terminal yet. */
export function titleFor(prev: string | undefined, t: Terminal | undefined, osc: string | undefined, agent?: string): string {
  if (agent) return agent;
  if (!t && !(osc && osc.trim()) && prev) return prev;
  return paneTitle(t, osc);
}

export class PaneTitles {
  private last = new Map<string, string>();

  /** titleFor with the pane's last title, which it then remembers. */
  title(paneId: string, t: Terminal | undefined, osc: string | undefined, agent?: string): string {
    const title = titleFor(this.last.get(paneId), t, osc, agent);
    this.last.set(paneId, title);
    return title;
  }
}

/** The page's one memory of pane titles (the pane header and its tab both read it). */
export const paneTitles = new PaneTitles();
