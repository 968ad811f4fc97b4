// What the user can do. Components and shortcuts call these; they go to the
// host through the Backend facade and report failures in the status area.

import { agentLabel, dismissKey, Dismissals, failureReason } from './agents/banner';
import { outcomeDismissKey } from './agents/outcome';
import { RestoreDismissals } from './agents/restore';
import type { Agent, AskpassPrompt, Binding, Direction, CreateAgentRequest, CreateAgentResult, HostInfo, HostStatus, ResumeOptions, Session, SettingKey } from './api';
import { mergePending, withPrompt } from './askpass';
import { hostMenuItems, withLiveStatus } from './hosts';
import type { Backend } from './backend';
import { command, type Shortcut } from './keys';
import type { MenuRequest } from './menus';
import { openPath, writeClipboard } from './platform';
import { AppearanceStorage, applyChrome, clampZoom, normalizeAppearance, type Appearance } from './terminal/appearance';
import { describeTarget, type PathLink } from './terminal/pathlinks';
import { activeTab, findPane, findPaneByTerminal, findTab, focusedPane, neighbour, panesInOrder, stepPane, stepTab, type FocusDirection } from './layout/layout';
import type { Store, WorkspaceView } from './store';
import type { ViewRegistry } from './terminal/registry';

const NOTICE_MS = 6000;
/**
 * After an agent starts in a terminal the page did not know, the bindings are listed again this
 * much later: the host records a resume's pending outcome right after the launch's binding event
 * and does not push it by itself, so the pane would not say "resuming…" until the agent's first
 * hook otherwise.
 */
const REFRESH_AFTER_LAUNCH_MS = 300;

export class Actions {
  private readonly backend: Backend;
  private readonly store: Store;
  private readonly views: ViewRegistry;
  private noticeTimer: ReturnType<typeof setTimeout> | null = null;
  private focusInFlight: string | null = null;
  private readonly dismissals: Dismissals;
  private readonly restoreDismissals: RestoreDismissals;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly looks: AppearanceStorage;

  constructor(
    backend: Backend,
    store: Store,
    views: ViewRegistry,
    dismissals: Dismissals = new Dismissals(null),
    restoreDismissals: RestoreDismissals = new RestoreDismissals(null),
    looks: AppearanceStorage = new AppearanceStorage(null),
  ) {
    this.backend = backend;
    this.store = store;
    this.views = views;
    this.dismissals = dismissals;
    this.restoreDismissals = restoreDismissals;
    this.looks = looks;
  }

  /** The focused pane of the active tab. */
  focusedPaneId(): string | undefined {
    const layout = this.store.get().layout;
    const tab = layout && activeTab(layout);
    return tab ? focusedPane(tab)?.id : undefined;
  }

  newTab(): void {
    this.showTerminals();
    this.run('new tab', this.backend.layout.newTab());
  }

  /** A new tab on a remote host ('' : this machine). */
  newTabOn(host: string): void {
    this.showTerminals();
    this.run(host ? `new tab on ${host}` : 'new tab', this.backend.layout.newTab(undefined, host || undefined));
  }

  /** Lists the configured hosts (hosts.list) into the store; their status seeds hostStatus. */
  async loadHosts(): Promise<readonly HostInfo[]> {
    try {
      const hs = await this.backend.hosts.list();
      this.store.set('hosts', hs);
      const live = { ...this.store.get().hostStatus };
      for (const h of hs) if (!live[h.name] && h.status.state) live[h.name] = h.status;
      this.store.set('hostStatus', live);
      return hs;
    } catch (err) {
      this.notice(`hosts: ${errorText(err)}`);
      return this.store.get().hosts ?? [];
    }
  }

  /** A "host" event: the link to one remote host changed. */
  noteHost(h: HostStatus): void {
    this.store.set('hostStatus', { ...this.store.get().hostStatus, [h.name]: h });
  }

  /** An "askpass" event: ssh asks the user something for a remote host (open), or stopped asking (closed). */
  noteAskpass(p: AskpassPrompt): void {
    this.store.set('askpass', withPrompt(this.store.get().askpass, p));
  }

  /** The prompts already open when the page (re)connects: their events went to no page. */
  async loadAskpass(): Promise<void> {
    try {
      const pending = await this.backend.askpass.pending();
      this.store.set('askpass', mergePending([], pending));
    } catch (err) {
      this.notice(`ssh prompts: ${errorText(err)}`);
    }
  }

  /** Answers ssh's prompt: the typed secret, Accept / Reject of a question, or a cancel. */
  async answerAskpass(id: string, a: { secret?: string; accept?: boolean; cancel?: boolean }): Promise<void> {
    // Gone from the page at once; the host's closing event would say the same.
    this.store.set('askpass', this.store.get().askpass.filter((x) => x.id !== id));
    try {
      await this.backend.askpass.answer(id, a);
    } catch (err) {
      this.notice(`ssh prompt: ${errorText(err)}`);
    }
  }

  /** Adds a host; rejects with the host's one line (the form shows it). */
  async addHost(name: string, ssh: string): Promise<void> {
    await this.backend.hosts.add(name.trim(), ssh.trim());
    await this.loadHosts();
  }

  async removeHost(name: string): Promise<void> {
    await this.backend.hosts.remove(name);
    await this.loadHosts();
  }

  /** "New tab on host…": a menu of this machine and the configured hosts, at (x, y) or under the "+" button. */
  async openHostMenu(x?: number, y?: number): Promise<void> {
    if (x === undefined || y === undefined) {
      const r = document.querySelector('[data-testid="new-tab"]')?.getBoundingClientRect();
      x = r ? r.left : 40;
      y = r ? r.bottom : 40;
    }
    const hs = await this.loadHosts();
    const items = hostMenuItems(withLiveStatus(hs, this.store.get().hostStatus), (h) => this.newTabOn(h), () => this.shortcut('hostsSettings'));
    this.openMenu({ x, y, label: 'New tab on host', items });
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
    this.showTerminals();
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

  /** Runs an action from the palette: one that needs the terminals brings them back first. */
  runCommand(s: Shortcut): void {
    if (!command(s).anyView) this.showTerminals();
    this.shortcut(s);
    // What opened a popover, a view or an editor keeps the focus; everything else gives it back.
    if (!FOCUS_TAKERS.has(s) && this.store.get().view === 'terminals') this.focusTerminal();
  }

  shortcut(s: Shortcut, paneId = this.focusedPaneId()): void {
    // Over Settings or Sessions, only what leaves them (or switches between them) applies.
    if (this.store.get().view !== 'terminals' && !command(s).anyView) return;
    switch (s) {
      case 'palette':
        return this.openPalette();
      case 'newAgent':
        this.showTerminals();
        this.store.set('newAgentOpen', true);
        return;
      case 'newTabOnHost':
        void this.openHostMenu();
        return;
      case 'hostsSettings':
        this.store.set('settingsSection', 'hosts');
        if (this.store.get().view === 'settings') this.store.set('view', 'terminals');
        this.showView('settings');
        return;
      case 'appearance':
        this.store.set('settingsSection', 'appearance');
        if (this.store.get().view === 'settings') this.store.set('view', 'terminals');
        this.showView('settings');
        return;
      case 'closeTab': {
        const tab = this.activeTabId();
        if (tab) void this.closeTab(tab);
        return;
      }
      case 'closeOtherTabs': {
        const tab = this.activeTabId();
        if (tab) void this.closeOtherTabs(tab);
        return;
      }
      case 'renameTab': {
        const tab = this.activeTabId();
        if (tab) this.startRename(tab);
        return;
      }
      case 'moveTabLeft':
      case 'moveTabRight': {
        const tab = this.activeTabId();
        if (tab) this.moveTabBy(tab, s === 'moveTabLeft' ? -1 : 1);
        return;
      }
      case 'goToTab1':
      case 'goToTab2':
      case 'goToTab3':
      case 'goToTab4':
      case 'goToTab5':
      case 'goToTab6':
      case 'goToTab7':
      case 'goToTab8':
        return this.goToTab(Number(s.slice(-1)) - 1);
      case 'goToLastTab':
        return this.goToTab(-1);
      case 'selectAll':
        return this.views.get(paneId ?? '')?.selectAll();
      case 'clear':
        return this.views.get(paneId ?? '')?.clear();
      case 'zoomIn':
        return this.setZoom(this.store.get().zoom + 1);
      case 'zoomOut':
        return this.setZoom(this.store.get().zoom - 1);
      case 'zoomReset':
        return this.setZoom(0);
      case 'settings':
        return this.toggleView('settings');
      case 'sessions':
        return this.toggleView('sessions');
      case 'agents':
        return this.toggleOverview();
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

  // The Agents overview (a panel over the terminals) and bringing a pane in front.

  toggleOverview(open = !this.store.get().overview): void {
    this.store.set('overview', open);
    if (!open && this.store.get().view === 'terminals') this.focusTerminal();
  }

  /** Brings a pane in front from anywhere (the overview, a notification): its tab, the terminals, the keyboard. */
  revealPane(paneId: string): void {
    this.store.set('overview', false);
    this.showView('terminals');
    const layout = this.store.get().layout;
    const loc = layout && findPane(layout, paneId);
    if (!loc) return;
    if (layout.activeTabId === loc.tab.id && loc.tab.focusedPaneId === paneId) this.views.get(paneId)?.focus();
    else this.focusPane(paneId);
  }

  private activeTabId(): string | undefined {
    const layout = this.store.get().layout;
    return layout ? activeTab(layout)?.id : undefined;
  }

  // Tabs: jumps, order, titles.

  /** Activates the tab at index (negative: from the end, -1 = the last); no such tab: nothing. */
  goToTab(index: number): void {
    const tabs = this.store.get().layout?.tabs ?? [];
    const tab = tabs[index < 0 ? tabs.length + index : index];
    if (tab) this.activateTab(tab.id);
  }

  /** Moves a tab to index in the strip (the host keeps the order). */
  moveTab(tabId: string, index: number): Promise<void> {
    const layout = this.store.get().layout;
    const from = layout?.tabs.findIndex((t) => t.id === tabId) ?? -1;
    if (from < 0 || from === index) return Promise.resolve();
    return this.run('move tab', this.backend.layout.moveTab(tabId, index));
  }

  moveTabBy(tabId: string, delta: number): void {
    const tabs = this.store.get().layout?.tabs ?? [];
    const from = tabs.findIndex((t) => t.id === tabId);
    const to = from + delta;
    if (from >= 0 && to >= 0 && to < tabs.length) void this.moveTab(tabId, to);
  }

  /** Opens the title editor of a tab (double-click, its menu, the palette). */
  startRename(tabId: string): void {
    this.showTerminals();
    this.store.set('renamingTabId', tabId);
  }

  /** Ends the title editor: title is the new one ("" = the automatic title), null = cancelled. */
  async finishRename(tabId: string, title: string | null): Promise<void> {
    if (this.store.get().renamingTabId === tabId) this.store.set('renamingTabId', null);
    const tab = this.store.get().layout?.tabs.find((t) => t.id === tabId);
    if (tab && title !== null && title.trim() !== tab.title) await this.run('rename tab', this.backend.layout.renameTab(tabId, title.trim()));
    this.focusTerminal();
  }

  /** Closes every tab but tabId, one at a time so each busy one can be confirmed (or kept). */
  async closeOtherTabs(tabId: string): Promise<void> {
    const others = (this.store.get().layout?.tabs ?? []).filter((t) => t.id !== tabId).map((t) => t.id);
    for (const id of others) await this.closeTab(id);
    this.activateTab(tabId);
  }

  // The palette and the context menus.

  openPalette(): void {
    this.store.set('menu', null);
    this.store.set('palette', true);
  }

  /** Closes the palette; the keyboard goes back to the terminal unless what ran took it. */
  closePalette(refocus = true): void {
    this.store.set('palette', false);
    if (refocus && this.store.get().view === 'terminals') this.focusTerminal();
  }

  openMenu(m: MenuRequest): void {
    this.store.set('palette', false);
    this.store.set('menu', m);
  }

  closeMenu(refocus = true): void {
    this.store.set('menu', null);
    if (refocus && this.store.get().view === 'terminals' && !this.store.get().renamingTabId) {
      this.focusTerminal();
      // Once the menu is gone from the page, the keyboard must not be left on nothing: a CI
      // run saw it on no terminal after Clear from the menu (5 s, nothing focused). If the
      // focus fell to the body (the focused item removed), it goes back to the terminal; if
      // the action put it somewhere (a search box, a dialog), it stays there.
      requestAnimationFrame(() => {
        const a = document.activeElement;
        if ((!a || a === document.body) && this.store.get().view === 'terminals' && !this.store.get().menu) this.focusTerminal();
      });
    }
  }

  // Appearance and zoom.

  /** Applies Settings → Appearance to every open pane now and keeps it for later pages. */
  setAppearance(a: Appearance): void {
    const next = normalizeAppearance(a);
    this.store.set('appearance', next);
    this.applyLook();
  }

  setZoom(zoom: number): void {
    this.store.set('zoom', clampZoom(zoom));
    this.applyLook();
  }

  private applyLook(): void {
    const { appearance, zoom } = this.store.get();
    this.looks.save(appearance, zoom);
    if (typeof document !== 'undefined') applyChrome(appearance);
    for (const v of this.views.all()) v.setAppearance(appearance, zoom);
  }

  // Paths on screen.

  /**
   * A Ctrl+clicked path: the desktop window opens it with the desktop's default application
   * (xdg-open, via the app); a browser tab copies "path:line:col" (the page cannot open files on
   * the host, which may not even be this machine).
   */
  async openPathLink(link: PathLink & { abs: string }): Promise<void> {
    const target = describeTarget(link.abs, link.line, link.col);
    try {
      if (await openPath(link.abs)) {
        this.notice(`opened ${link.abs}`);
        return;
      }
      await writeClipboard(target);
      this.notice(`copied ${target} (a browser tab cannot open files on the host)`);
    } catch (err) {
      this.notice(`open ${target}: ${errorText(err)}`);
    }
  }

  // Workspace views (Settings, Sessions) over the terminals.

  showView(view: WorkspaceView): void {
    if (this.store.get().view === view) return;
    this.store.set('view', view);
    if (view === 'terminals') this.focusTerminal();
  }

  toggleView(view: Exclude<WorkspaceView, 'terminals'>): void {
    this.showView(this.store.get().view === view ? 'terminals' : view);
  }

  /** Back to the terminals (Esc, close button); the focused pane gets the keyboard. */
  showTerminals(): void {
    this.showView('terminals');
  }

  /** Gives the keyboard back to the focused pane's terminal. */
  focusTerminal(): void {
    const id = this.focusedPaneId();
    if (id) this.views.get(id)?.focus();
  }

  /**
   * Gives the keyboard back after a popover, panel or dialog closed: to the open
   * Settings or Sessions view, else to the focused pane's terminal, never to the
   * button that opened it (where typing goes nowhere and a space reopens it).
   */
  refocus(): void {
    if (this.store.get().view !== 'terminals') {
      document.querySelector<HTMLElement>('.workspace-view')?.focus();
      return;
    }
    this.focusTerminal();
  }

  // Bindings and the resume banner.

  /**
   * Loads every binding (after each hello). Events that arrive while the list is on its
   * way are newer than it, so they are applied again on top.
   */
  async loadBindings(): Promise<void> {
    const during: Binding[] = [];
    const off = this.backend.onBinding((b) => during.push(b));
    try {
      const list = await this.backend.bindings.list();
      this.store.setBindings(list);
      for (const b of during) this.store.putBinding(b);
    } catch (err) {
      // An older host without agents: no bindings, no banners.
      console.info(`reprise: bindings.list: ${errorText(err)}`);
    } finally {
      off();
    }
  }

  /** A "binding" event: kept, and a new live agent makes the page list bindings again soon (see REFRESH_AFTER_LAUNCH_MS). */
  noteBinding(b: Binding): void {
    const known = !!this.store.get().bindings[b.terminalId];
    this.store.putBinding(b);
    if (!known && !b.outcome && !b.endReason && !b.endedAt) this.refreshBindingsSoon();
  }

  refreshBindingsSoon(delayMs = REFRESH_AFTER_LAUNCH_MS): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.loadBindings();
    }, delayMs);
  }

  /**
   * The Resume button (and Retry): relaunches the agent in the binding's pane. One request at a
   * time. opts.recreateCwd ("Recreate folder and resume") first recreates the vanished folder.
   */
  async resume(b: Binding, opts: ResumeOptions = {}): Promise<void> {
    const id = b.terminalId;
    if (this.store.get().resumes[id]?.phase === 'resuming') return;
    this.store.setResume(id, { phase: 'resuming' });
    const layout = this.store.get().layout;
    const paneId = b.paneId || (layout ? findPaneByTerminal(layout, id)?.pane.id : undefined);
    const launch = { label: agentLabel(b), at: Date.now() };
    if (paneId) this.store.setLaunch(paneId, launch);
    try {
      const r = await this.backend.resume(id, opts);
      if (paneId) this.store.setLaunch(r.paneId || paneId, { ...launch, terminalId: r.terminalId });
      this.store.setResume(id, null);
      // The new terminal's pending outcome ("resuming…") is not pushed by the host.
      this.refreshBindingsSoon(0);
    } catch (err) {
      if (paneId) this.store.setLaunch(paneId, null);
      this.store.setResume(id, { phase: 'failed', reason: failureReason(agentLabel(b), errorText(err)) });
    }
  }

  /** Hides the banner for this terminal's session for the rest of the page's session. */
  dismissResume(b: Binding): void {
    const key = dismissKey(b);
    this.store.setResume(b.terminalId, null);
    this.store.setDismissed(key);
    this.dismissals.save(this.store.get().dismissed);
  }

  /** Hides a pane's outcome notice (one terminal's one outcome) for the rest of the page's session. */
  dismissOutcome(b: Binding): void {
    this.store.setDismissed(outcomeDismissKey(b));
    this.dismissals.save(this.store.get().dismissed);
  }

  // The restore summary.

  /** Asks the host for the forecast of its start (after every hello); an older host has none. */
  async loadRestore(): Promise<void> {
    try {
      const r = await this.backend.restore.report();
      if (r && typeof r.at === 'string') this.store.set('restore', r);
    } catch (err) {
      console.info(`reprise: restore.report: ${errorText(err)}`);
    }
  }

  /** Hides the status bar's restore summary for this report (remembered across reloads). */
  dismissRestore(at: string): void {
    const cur = this.store.get().restoreDismissed;
    if (cur[at]) return;
    const next = { ...cur, [at]: true as const };
    this.store.set('restoreDismissed', next);
    this.restoreDismissals.save(next);
  }

  /** Opens the Sessions view, searching for query (e.g. a session id). */
  openSessions(query = ''): void {
    this.store.set('sessionsQuery', query);
    this.showView('sessions');
  }

  /** Shows a pane: activates its tab and focuses it, over any open view. */
  showPane(paneId: string): void {
    this.showTerminals();
    this.focusPane(paneId);
  }

  // Agents.

  async loadAgents(): Promise<readonly Agent[]> {
    const list = await this.backend.agents.list();
    this.store.setAgents(list);
    return list;
  }

  /** Saves an agent; rejects with the host's one-line validation error (shown inline). */
  async saveAgent(a: Agent): Promise<Agent> {
    const saved = await this.backend.agents.save(a);
    this.store.putAgent(saved);
    return saved;
  }

  async resetAgent(id: string): Promise<Agent> {
    const a = await this.backend.agents.reset(id);
    this.store.putAgent(a);
    return a;
  }

  async deleteAgent(id: string): Promise<void> {
    await this.backend.agents.delete(id);
    this.store.removeAgent(id);
  }

  async setHooks(id: string, install: boolean): Promise<Agent> {
    const a = install ? await this.backend.agents.installHooks(id) : await this.backend.agents.removeHooks(id);
    this.store.putAgent(a);
    return a;
  }

  /** Starts an agent (a new tab unless req.paneId); rejects with the host's error line. */
  async runAgent(req: CreateAgentRequest): Promise<CreateAgentResult> {
    const r = await this.backend.agents.run(req);
    // The overview shows the first prompt of agents this page started (the host keeps no prompt text).
    const prompt = req.prompt?.trim();
    if (prompt) {
      const cur = this.store.get().agentStates[r.terminalId];
      const label = this.store.get().agents?.find((a) => a.id === req.agent)?.label ?? req.agent;
      this.store.putAgentState(r.terminalId, { ...(cur ?? { terminalId: r.terminalId, agentLabel: label, state: 'starting', paneId: r.paneId, cwd: req.cwd }), firstPrompt: prompt });
    }
    this.showTerminals();
    return r;
  }

  /**
   * Starts an agent from the New agent popover: in a new tab, in a new split beside the focused
   * pane (split first, then the agent replaces the new pane's fresh shell), or in the focused pane
   * itself (asking first when a program runs there). Resolves false when the user said no.
   */
  async startAgent(where: AgentPlace, req: CreateAgentRequest): Promise<boolean> {
    if (where === 'tab') {
      await this.runAgent(req);
      return true;
    }
    const paneId = this.focusedPaneId();
    const layout = this.store.get().layout;
    const loc = paneId && layout ? findPane(layout, paneId) : undefined;
    if (!paneId || !loc) throw new Error('no focused pane');
    if (where === 'here') {
      const busy = await this.busyCommands([loc.pane.terminalId]);
      if (busy.length > 0) {
        const ok = await this.confirm(`${busy[0]} is still running in the focused pane. Replace it with the agent?`, 'Replace', 'Replace?');
        if (!ok) return false;
      }
      await this.runAgent({ ...req, paneId });
      return true;
    }
    const before = new Set(panesInOrder(loc.tab.root).map((p) => p.id));
    const after = await this.backend.layout.split(paneId, where === 'right' ? 'row' : 'column');
    this.store.setLayout(after);
    const tab = findTab(after, loc.tab.id);
    const added = tab ? panesInOrder(tab.root).find((p) => !before.has(p.id)) : undefined;
    if (!added) throw new Error('the split did not add a pane');
    await this.runAgent({ ...req, paneId: added.id });
    return true;
  }

  /**
   * Resumes a past session from the Sessions view: in the focused pane (asking first when a
   * program is running there, since the pane's terminal is replaced) or in a new tab.
   * Resolves false when the user said no.
   */
  async resumeSession(s: Session, where: 'here' | 'newTab'): Promise<boolean> {
    const req: CreateAgentRequest = { agent: s.agentId, resumeSessionId: s.sessionId };
    if (s.cwd) req.cwd = s.cwd;
    if (where === 'here') {
      const paneId = this.focusedPaneId();
      const layout = this.store.get().layout;
      const loc = paneId && layout ? findPane(layout, paneId) : null;
      if (!paneId || !loc) throw new Error('no focused pane');
      const busy = await this.busyCommands([loc.pane.terminalId]);
      if (busy.length > 0) {
        const ok = await this.confirm(`${busy[0]} is still running in the focused pane. Replace it with ${s.agentLabel || s.agentId}?`, 'Replace', 'Replace?');
        if (!ok) return false;
      }
      req.paneId = paneId;
    }
    await this.runAgent(req);
    return true;
  }

  /** Every agent session, newest first, matching query. */
  listSessions(query: string): Promise<Session[]> {
    return this.backend.sessions.list(query ? { all: true, query } : { all: true });
  }

  /** Asks, then deletes a session's history and saved output. Resolves false when the user said no. */
  async forgetSession(s: Pick<Session, 'agentId' | 'sessionId'>): Promise<boolean> {
    const ok = await this.confirm('Its history and saved output are deleted.', 'Forget', 'Forget this session?');
    if (!ok) return false;
    await this.backend.sessions.forget(s.agentId, s.sessionId);
    return true;
  }

  // Settings.

  getSetting(key: SettingKey): Promise<string> {
    return this.backend.settings.get(key);
  }

  /** Rejects with the host's one-line validation error. */
  setSetting(key: SettingKey, value: string): Promise<void> {
    return this.backend.settings.set(key, value);
  }

  /** Shows the in-app confirm dialog; resolves true when the user confirms. */
  confirm(message: string, confirmLabel: string, title?: string): Promise<boolean> {
    const prev = this.store.get().confirm;
    prev?.resolve(false);
    return new Promise((resolve) => {
      const req = {
        title,
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
      this.notice(`${what}: ${errorText(err)}`);
    }
  }
}

/** Actions after which the palette leaves the focus where the action put it. */
const FOCUS_TAKERS = new Set<Shortcut>(['palette', 'agents', 'newAgent', 'renameTab', 'search', 'settings', 'sessions', 'appearance', 'hostsSettings', 'newTabOnHost', 'closePane', 'closeTab', 'closeOtherTabs']);

/** Where the New agent popover starts an agent. */
export type AgentPlace = 'tab' | 'right' | 'down' | 'here';

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
