// The page's one store: the host's layout and terminals as last heard, plus
// small bits of UI state. Components read it with useStore(selector).

import { useSyncExternalStore } from 'react';
import type { ResumeState } from './agents/banner';
import type { AgentInfo, NotifyWhen } from './attention/attention';
import type { Agent, AskpassPrompt, Binding, DaemonStatus, HostInfo, HostStatus, Layout, RestoreReport, Terminal } from './api';
import type { BackendState } from './backend';
import type { PaneInputState } from './terminal/TerminalView';
import { DEFAULT_APPEARANCE, type Appearance } from './terminal/appearance';
import type { MenuRequest } from './menus';

export interface ConfirmRequest {
  /** The dialog's heading; "Close?" when not given. */
  title?: string;
  message: string;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}

export interface AppState {
  conn: BackendState;
  layout: Layout | null;
  terminals: Readonly<Record<string, Terminal>>;
  /** OSC titles by terminal id. */
  titles: Readonly<Record<string, string>>;
  /** Directories the shells reported (OSC 7), by terminal id. */
  cwds: Readonly<Record<string, string>>;
  /** Each pane's held / refused input and whether its screen is an old one, by pane id. */
  paneInput: Readonly<Record<string, PaneInputState>>;
  /** A line typed while the window opened that was not sent (its start may have been lost), by pane id. */
  inputNotes: Readonly<Record<string, string>>;
  /** Attach errors by pane id. */
  paneErrors: Readonly<Record<string, string>>;
  /** The pane whose search box is open. */
  searchPaneId: string | null;
  confirm: ConfirmRequest | null;
  /** ssh's open prompts for remote hosts (event "askpass"), oldest first; the dialog shows the first. */
  askpass: readonly AskpassPrompt[];
  /** The pty daemon's health, when the host has reported it. */
  daemon: DaemonStatus | null;
  /** Remote hosts' links as the host last reported them (hosts.list, then "host" events), by name. */
  hostStatus: Readonly<Record<string, HostStatus>>;
  /** The configured remote hosts as last listed (null until first asked for). */
  hosts: readonly HostInfo[] | null;
  /** A short message for the status area (an error from the host, …). */
  notice: string | null;
  /** Which agent runs (or ran) in each terminal, by terminal id. */
  bindings: Readonly<Record<string, Binding>>;
  /** The page's resume requests in flight or failed, by the dead terminal's id. */
  resumes: Readonly<Record<string, ResumeState>>;
  /** Resumes the page launched, by pane id (so the pane says "Resuming…" until the host's outcome arrives). */
  launches: Readonly<Record<string, Launch>>;
  /** Dismissed resume banners, by dismissKey (terminal id / session id), and outcome notices (outcomeDismissKey). */
  dismissed: Readonly<Record<string, true>>;
  /** The host's restore forecast (restore.report, then "restore" events); null until known. */
  restore: RestoreReport | null;
  /** Dismissed restore summaries, by report time. */
  restoreDismissed: Readonly<Record<string, true>>;
  /** A search the Sessions view starts with when it next opens. */
  sessionsQuery: string;
  /** Agent configurations as last listed (null until first asked for). */
  agents: readonly Agent[] | null;
  /** What the workspace shows: the terminals, or a full view over them. */
  view: WorkspaceView;
  /** Each terminal's agent state (agents.states, then binding events), by terminal id. */
  agentStates: Readonly<Record<string, AgentInfo>>;
  /** Panes whose bell rang while they were not in front, until seen, by pane id. */
  bells: Readonly<Record<string, true>>;
  /** The Agents overview is open. */
  overview: boolean;
  /** Settings → Notifications as last loaded or saved. */
  notify: { when: NotifyWhen; sound: boolean };
  /** Settings → Appearance, and the font zoom in steps (both kept in localStorage). */
  appearance: Appearance;
  zoom: number;
  /** The command palette is open. */
  palette: boolean;
  /** The open context menu. */
  menu: MenuRequest | null;
  /** The tab whose title is being edited in the tab strip. */
  renamingTabId: string | null;
  /** The New agent popover is open (its button, Ctrl+Shift+N, the palette). */
  newAgentOpen: boolean;
  /** The section Settings opens on next (null: its first). */
  settingsSection: string | null;
}

export type WorkspaceView = 'terminals' | 'settings' | 'sessions';

/** A resume the page asked for in a pane, until the host's outcome for it is known. */
export interface Launch {
  /** The agent's label. */
  label: string;
  /** The new terminal, once the host answered. */
  terminalId?: string;
  /** When it was asked for (Date.now()). */
  at: number;
}

export const initialState: AppState = {
  conn: 'connecting',
  layout: null,
  terminals: {},
  titles: {},
  cwds: {},
  paneInput: {},
  inputNotes: {},
  paneErrors: {},
  searchPaneId: null,
  confirm: null,
  askpass: [],
  daemon: null,
  hostStatus: {},
  hosts: null,
  notice: null,
  bindings: {},
  resumes: {},
  launches: {},
  dismissed: {},
  restore: null,
  restoreDismissed: {},
  sessionsQuery: '',
  agents: null,
  view: 'terminals',
  agentStates: {},
  bells: {},
  overview: false,
  notify: { when: 'needs-input-and-finished', sound: false },
  appearance: DEFAULT_APPEARANCE,
  zoom: 0,
  palette: false,
  menu: null,
  renamingTabId: null,
  newAgentOpen: false,
  settingsSection: null,
};

export class Store {
  private state: AppState;
  private listeners = new Set<() => void>();

  constructor(init: AppState = initialState) {
    this.state = init;
  }

  get = (): AppState => this.state;

  subscribe = (cb: () => void): (() => void) => {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  };

  update(fn: (s: AppState) => AppState): void {
    const next = fn(this.state);
    if (next === this.state) return;
    this.state = next;
    for (const cb of [...this.listeners]) cb();
  }

  /** Takes a layout from the host unless it is older than the one we have (force: after hello). */
  setLayout(layout: Layout, force = false): void {
    this.update((s) => (!force && s.layout && layout.version < s.layout.version ? s : { ...s, layout }));
  }

  setTerminals(list: Terminal[]): void {
    const terminals: Record<string, Terminal> = {};
    for (const t of list) terminals[t.id] = t;
    this.update((s) => ({ ...s, terminals }));
  }

  putTerminal(t: Terminal): void {
    this.update((s) => ({ ...s, terminals: { ...s.terminals, [t.id]: t } }));
  }

  setTitle(terminalId: string, title: string): void {
    this.update((s) => (s.titles[terminalId] === title ? s : { ...s, titles: { ...s.titles, [terminalId]: title } }));
  }

  setCwd(terminalId: string, cwd: string): void {
    this.update((s) => (s.cwds[terminalId] === cwd ? s : { ...s, cwds: { ...s.cwds, [terminalId]: cwd } }));
  }

  setPaneInput(paneId: string, st: PaneInputState): void {
    this.update((s) => {
      const cur = s.paneInput[paneId];
      if (cur && cur.held === st.held && cur.refused === st.refused && cur.cut === st.cut && cur.broken === st.broken && cur.stale === st.stale) return s;
      return { ...s, paneInput: { ...s.paneInput, [paneId]: st } };
    });
  }

  setInputNote(paneId: string, note: string | null): void {
    this.update((s) => {
      if ((s.inputNotes[paneId] ?? null) === note) return s;
      const inputNotes = { ...s.inputNotes };
      if (note === null) delete inputNotes[paneId];
      else inputNotes[paneId] = note;
      return { ...s, inputNotes };
    });
  }

  setPaneError(paneId: string, message: string | null): void {
    this.update((s) => {
      if ((s.paneErrors[paneId] ?? null) === message) return s;
      const paneErrors = { ...s.paneErrors };
      if (message === null) delete paneErrors[paneId];
      else paneErrors[paneId] = message;
      return { ...s, paneErrors };
    });
  }

  /** All bindings from bindings.list (replaces what was there). */
  setBindings(list: readonly Binding[]): void {
    const bindings: Record<string, Binding> = {};
    for (const b of list) bindings[b.terminalId] = b;
    this.update((s) => ({ ...s, bindings }));
  }

  /** One binding from a "binding" event. */
  putBinding(b: Binding): void {
    this.update((s) => {
      const cur = s.bindings[b.terminalId];
      if (cur && sameJSON(cur, b)) return s;
      return { ...s, bindings: { ...s.bindings, [b.terminalId]: b } };
    });
  }

  setResume(terminalId: string, state: ResumeState | null): void {
    this.update((s) => {
      const cur = s.resumes[terminalId];
      if (cur === state || (!cur && !state)) return s;
      const resumes = { ...s.resumes };
      if (state) resumes[terminalId] = state;
      else delete resumes[terminalId];
      return { ...s, resumes };
    });
  }

  setLaunch(paneId: string, launch: Launch | null): void {
    this.update((s) => {
      if (!launch && !s.launches[paneId]) return s;
      const launches = { ...s.launches };
      if (launch) launches[paneId] = launch;
      else delete launches[paneId];
      return { ...s, launches };
    });
  }

  setDismissed(key: string): void {
    this.update((s) => (s.dismissed[key] ? s : { ...s, dismissed: { ...s.dismissed, [key]: true } }));
  }

  setAgents(list: readonly Agent[]): void {
    this.update((s) => ({ ...s, agents: list }));
  }

  /** One agent after a save, reset or hooks change (a new one goes last). */
  putAgent(a: Agent): void {
    this.update((s) => {
      const list = s.agents ?? [];
      const i = list.findIndex((x) => x.id === a.id);
      const agents = i < 0 ? [...list, a] : list.map((x, j) => (j === i ? a : x));
      return { ...s, agents };
    });
  }

  removeAgent(id: string): void {
    this.update((s) => (s.agents?.some((a) => a.id === id) ? { ...s, agents: s.agents.filter((a) => a.id !== id) } : s));
  }

  /** One terminal's agent state; null removes it. */
  putAgentState(terminalId: string, a: AgentInfo | null): void {
    this.update((s) => {
      const cur = s.agentStates[terminalId];
      if (!a && !cur) return s;
      if (a && cur && sameJSON(cur, a)) return s;
      const agentStates = { ...s.agentStates };
      if (a) agentStates[terminalId] = a;
      else delete agentStates[terminalId];
      return { ...s, agentStates };
    });
  }

  setBell(paneId: string, on: boolean): void {
    this.update((s) => {
      if (!!s.bells[paneId] === on) return s;
      const bells = { ...s.bells };
      if (on) bells[paneId] = true;
      else delete bells[paneId];
      return { ...s, bells };
    });
  }

  set<K extends keyof AppState>(key: K, value: AppState[K]): void {
    this.update((s) => (s[key] === value ? s : { ...s, [key]: value }));
  }
}

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function useStore<T>(store: Store, select: (s: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store.get()));
}
