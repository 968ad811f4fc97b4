// What the user can do. Components and shortcuts call these; they go to the
// host through the Backend facade and report failures in the status area.

import type { Direction } from './api';
import type { Backend } from './backend';
import type { Shortcut } from './keys';
import { activeTab, findPane, findTab, focusedPane, neighbour, panesInOrder, stepPane, stepTab, type FocusDirection } from './layout/layout';
import type { Store } from './store';
import type { ViewRegistry } from './terminal/registry';

const NOTICE_MS = 6000;

export class Actions {
  private readonly backend: Backend;
  private readonly store: Store;
  private readonly views: ViewRegistry;
  private noticeTimer: ReturnType<typeof setTimeout> | null = null;
  private focusInFlight: string | null = null;

  constructor(backend: Backend, store: Store, views: ViewRegistry) {
    this.backend = backend;
    this.store = store;
    this.views = views;
  }

  /** The focused pane of the active tab. */
  focusedPaneId(): string | undefined {
    const layout = this.store.get().layout;
    const tab = layout && activeTab(layout);
    return tab ? focusedPane(tab)?.id : undefined;
  }

  newTab(): void {
    this.run('new tab', this.backend.layout.newTab());
  }

  split(direction: Direction, paneId = this.focusedPaneId()): void {
    if (paneId) this.run('split', this.backend.layout.split(paneId, direction));
  }

  async closePane(paneId = this.focusedPaneId()): Promise<void> {
    const layout = this.store.get().layout;
    if (!paneId || !layout) return;
    const loc = findPane(layout, paneId);
    if (!loc) return;
    const busy = await this.busyCommands([loc.pane.terminalId]);
    if (busy.length > 0) {
      const ok = await this.confirm(`${busy[0]} is still running in this pane. Close it?`, 'Close');
      if (!ok) return;
    }
    await this.run('close pane', this.backend.layout.closePane(paneId));
  }

  restartPane(paneId: string): void {
    this.run('restart', this.backend.layout.restartPane(paneId));
  }

  async closeTab(tabId: string): Promise<void> {
    const layout = this.store.get().layout;
    const tab = layout && findTab(layout, tabId);
    if (!tab) return;
    const busy = await this.busyCommands(panesInOrder(tab.root).map((p) => p.terminalId));
    if (busy.length > 0) {
      const what = busy.length === 1 ? `${busy[0]} is` : `${busy.slice(0, -1).join(', ')} and ${busy[busy.length - 1]} are`;
      const ok = await this.confirm(`${what} still running in this tab. Close it?`, 'Close tab');
      if (!ok) return;
    }
    await this.run('close tab', this.backend.layout.closeTab(tabId));
  }

  focusPane(paneId: string): void {
    const layout = this.store.get().layout;
    if (!layout) return;
    const loc = findPane(layout, paneId);
    if (!loc) return;
    if (layout.activeTabId === loc.tab.id && loc.tab.focusedPaneId === paneId) return;
    if (this.focusInFlight === paneId) return;
    this.focusInFlight = paneId;
    this.run(
      'focus',
      this.backend.layout.focus(paneId).finally(() => {
        if (this.focusInFlight === paneId) this.focusInFlight = null;
      }),
    );
  }

  activateTab(tabId: string): void {
    const layout = this.store.get().layout;
    if (!layout || layout.activeTabId === tabId) return;
    this.run('switch tab', this.backend.layout.activateTab(tabId));
  }

  stepTab(delta: number): void {
    const layout = this.store.get().layout;
    const tab = layout && stepTab(layout, delta);
    if (tab) this.activateTab(tab.id);
  }

  stepPane(delta: number): void {
    const layout = this.store.get().layout;
    const tab = layout && activeTab(layout);
    const cur = tab && focusedPane(tab);
    const next = tab && cur && stepPane(tab, cur.id, delta);
    if (next) this.focusPane(next.id);
  }

  focusDirection(dir: FocusDirection): void {
    const layout = this.store.get().layout;
    const tab = layout && activeTab(layout);
    const cur = tab && focusedPane(tab);
    const next = tab && cur && neighbour(tab, cur.id, dir);
    if (next) this.focusPane(next.id);
  }

  resizeSplit(splitId: string, sizes: number[]): Promise<void> {
    return this.run('resize', this.backend.layout.resize(splitId, sizes));
  }

  openSearch(paneId = this.focusedPaneId()): void {
    if (paneId) this.store.set('searchPaneId', paneId);
  }

  closeSearch(): void {
    const id = this.store.get().searchPaneId;
    if (!id) return;
    this.views.get(id)?.clearSearch();
    this.store.set('searchPaneId', null);
    this.views.get(id)?.focus();
  }

  async copy(paneId = this.focusedPaneId()): Promise<void> {
    const view = paneId ? this.views.get(paneId) : undefined;
    if (view) await this.run('copy', view.copySelection());
  }

  async paste(paneId = this.focusedPaneId()): Promise<void> {
    const view = paneId ? this.views.get(paneId) : undefined;
    if (view) await this.run('paste', view.paste());
  }

  shortcut(s: Shortcut, paneId = this.focusedPaneId()): void {
    switch (s) {
      case 'newTab':
        return this.newTab();
      case 'splitRight':
        return this.split('row', paneId);
      case 'splitDown':
        return this.split('column', paneId);
      case 'closePane':
        void this.closePane(paneId);
        return;
      case 'nextTab':
        return this.stepTab(1);
      case 'prevTab':
        return this.stepTab(-1);
      case 'nextPane':
        return this.stepPane(1);
      case 'prevPane':
        return this.stepPane(-1);
      case 'focusLeft':
        return this.focusDirection('left');
      case 'focusRight':
        return this.focusDirection('right');
      case 'focusUp':
        return this.focusDirection('up');
      case 'focusDown':
        return this.focusDirection('down');
      case 'search':
        return this.openSearch(paneId);
      case 'copy':
        void this.copy(paneId);
        return;
      case 'paste':
        void this.paste(paneId);
        return;
    }
  }

  /** Shows the in-app confirm dialog; resolves true when the user confirms. */
  confirm(message: string, confirmLabel: string): Promise<boolean> {
    const prev = this.store.get().confirm;
    prev?.resolve(false);
    return new Promise((resolve) => {
      const req = {
        message,
        confirmLabel,
        resolve: (ok: boolean) => {
          if (this.store.get().confirm === req) this.store.set('confirm', null);
          resolve(ok);
        },
      };
      this.store.set('confirm', req);
    });
  }

  notice(message: string): void {
    this.store.set('notice', message);
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => this.store.set('notice', null), NOTICE_MS);
  }

  /** Foreground commands of the busy terminals among ids (unknown or exited ones are not busy). */
  private async busyCommands(terminalIds: string[]): Promise<string[]> {
    const terms = this.store.get().terminals;
    const checks = terminalIds
      .filter((id) => terms[id]?.status !== 'exited')
      .map((id) =>
        this.backend.terminals.foreground(id).then(
          (r) => (r.busy ? r.command || 'A program' : null),
          () => null,
        ),
      );
    return (await Promise.all(checks)).filter((c): c is string => c !== null);
  }

  private async run(what: string, p: Promise<unknown>): Promise<void> {
    try {
      await p;
    } catch (err) {
      this.notice(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
