// The page's one store: the host's layout and terminals as last heard, plus
// small bits of UI state. Components read it with useStore(selector).

import { useSyncExternalStore } from 'react';
import type { DaemonStatus, Layout, Terminal } from './api';
import type { BackendState } from './backend';

export interface ConfirmRequest {
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
  /** Attach errors by pane id. */
  paneErrors: Readonly<Record<string, string>>;
  /** The pane whose search box is open. */
  searchPaneId: string | null;
  confirm: ConfirmRequest | null;
  /** The pty daemon's health, when the host has reported it. */
  daemon: DaemonStatus | null;
  /** A short message for the status area (an error from the host, …). */
  notice: string | null;
}

export const initialState: AppState = {
  conn: 'connecting',
  layout: null,
  terminals: {},
  titles: {},
  paneErrors: {},
  searchPaneId: null,
  confirm: null,
  daemon: null,
  notice: null,
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

  setPaneError(paneId: string, message: string | null): void {
    this.update((s) => {
      if ((s.paneErrors[paneId] ?? null) === message) return s;
      const paneErrors = { ...s.paneErrors };
      if (message === null) delete paneErrors[paneId];
      else paneErrors[paneId] = message;
      return { ...s, paneErrors };
    });
  }

  set<K extends keyof AppState>(key: K, value: AppState[K]): void {
    this.update((s) => (s[key] === value ? s : { ...s, [key]: value }));
  }
}

export function useStore<T>(store: Store, select: (s: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store.get()));
}
