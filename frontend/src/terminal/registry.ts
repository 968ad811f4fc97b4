// Terminal views by pane. A view outlives the React component that shows it
// (a split moves a pane to another place in the tree); it is disposed when
// its pane leaves the layout. A pane that gets another terminal (restart,
// resume, a daemon recovery) keeps its view, which re-attaches: its last
// screen and any input typed meanwhile stay until the new terminal's replay.

import type { Layout } from '../api';
import { panesInOrder } from '../layout/layout';
import { forgetPaneSize } from './panesize';
import type { TerminalView } from './TerminalView';

export type ViewFactory = (paneId: string, terminalId: string) => TerminalView;

export class ViewRegistry {
  private views = new Map<string, TerminalView>();
  private readonly create: ViewFactory;

  constructor(create: ViewFactory) {
    this.create = create;
  }

  /** The pane's view for terminalId, made on first use. */
  acquire(paneId: string, terminalId: string): TerminalView {
    const cur = this.views.get(paneId);
    if (cur) {
      cur.retarget(terminalId);
      return cur;
    }
    const view = this.create(paneId, terminalId);
    this.views.set(paneId, view);
    return view;
  }

  get(paneId: string): TerminalView | undefined {
    return this.views.get(paneId);
  }

  all(): TerminalView[] {
    return [...this.views.values()];
  }

  /** Disposes views whose pane is gone from layout; points the others at their pane's terminal. */
  sync(layout: Layout): void {
    const live = new Map<string, string>();
    for (const tab of layout.tabs) for (const p of panesInOrder(tab.root)) live.set(p.id, p.terminalId);
    for (const [paneId, view] of this.views) {
      const terminalId = live.get(paneId);
      if (terminalId === undefined) {
        this.views.delete(paneId);
        view.dispose();
        forgetPaneSize(paneId);
      } else view.retarget(terminalId);
    }
  }
}
