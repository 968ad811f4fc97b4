// Helpers for end-to-end tests, present in every build:
// window.__reprise.paneText(paneId), .paneTail(paneId, n), .layout(), .stats(), .terminals(), .connection(),
// .bindings(), .restore(), and three writers: .injectBinding(b), which puts a fake binding in the
// page's store (as if a "binding" event had come) to show a resume banner without a real agent
// (it never reaches the host); .typeInto(paneId, data), which types into a pane as xterm.js
// does for a key it has handled; and .terminal(paneId), the pane's xterm.js itself, which a
// benchmark feeds from memory (never through the host) for an anchor.

import type { Terminal as XTerm } from '@xterm/xterm';
import type { Binding, Layout, RestoreReport, Terminal } from './api';
import type { BackendState } from './backend';
import type { AgentInfo } from './attention/attention';
import type { Attention } from './attention/controller';
import type { StartMarks, StartReport } from './startmarks';
import type { Store } from './store';
import type { ViewRegistry } from './terminal/registry';
import type { ViewStats } from './terminal/TerminalView';

export interface RepriseTestHooks {
  /** The pane's active buffer as text (all lines, trimmed right); null for an unknown pane. */
  paneText(paneId: string): string | null;
  /** The last n lines of paneText, read from the end of the buffer only (for polling a big pane). */
  paneTail(paneId: string, n: number): string | null;
  /** A copy of the last layout from the host. */
  layout(): Layout | null;
  /** Per live handle: bytes written to xterm, rendered, acknowledged (totals over the view's attachments). */
  stats(): Record<string, ViewStats>;
  terminals(): Terminal[];
  connection(): BackendState;
  /** The bindings the page knows, by terminal id. */
  bindings(): Record<string, Binding>;
  /** The host's restore forecast as the page has it (restore.report / "restore" events). */
  restore(): RestoreReport | null;
  /** Puts b in the page's store as a "binding" event would (page only; the host never hears of it). */
  injectBinding(b: Binding): void;
  /**
   * Types data into the pane as xterm.js does for a key it has handled (Terminal.input), so a
   * benchmark can time the app's own path, key handled → echo drawn, apart from the browser's
   * input pipeline. Returns false for an unknown pane.
   */
  typeInto(paneId: string, data: string): boolean;
  /**
   * The pane's xterm.js Terminal, for benchmarks that feed it from memory (never through the
   * host) to tell the page's own cost from the transport's; null for an unknown pane.
   */
  terminal(paneId: string): XTerm | null;
  /** Every terminal's agent state as the page has it, by terminal id. */
  agentStates(): Record<string, AgentInfo>;
  /** Puts an agent state in the page's store (page only, e.g. a turn silent for 12 min, which a test cannot wait for). */
  injectAgentState(a: AgentInfo): void;
  /** The notifications the page raised (agents and OSC), oldest first. */
  notifications(): { title: string; body: string; paneId: string; source: string; at: number }[];
  /** The page's start, phase by phase (startmarks.ts). */
  startMarks(): StartReport | null;
}

declare global {
  interface Window {
    __reprise?: RepriseTestHooks;
  }
}

export function installTestHooks(store: Store, views: ViewRegistry, attention: Attention, marks?: StartMarks): void {
  const clone = <T>(v: T): T => (v === null || v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
  const hooks: RepriseTestHooks = {
    paneText: (paneId) => views.get(paneId)?.text() ?? null,
    paneTail: (paneId, n) => views.get(paneId)?.tail(n) ?? null,
    layout: () => clone(store.get().layout),
    stats: () => {
      const out: Record<string, ViewStats> = {};
      for (const v of views.all()) {
        const s = v.stats();
        if (s.handle !== null) out[String(s.handle)] = s;
      }
      return out;
    },
    terminals: () => clone(Object.values(store.get().terminals)),
    connection: () => store.get().conn,
    bindings: () => clone({ ...store.get().bindings }),
    restore: () => clone(store.get().restore),
    injectBinding: (b) => store.putBinding(clone(b)),
    typeInto: (paneId, data) => {
      const v = views.get(paneId);
      if (!v) return false;
      v.term.input(data, true);
      return true;
    },
    terminal: (paneId) => views.get(paneId)?.term ?? null,
    agentStates: () => clone({ ...store.get().agentStates }),
    injectAgentState: (a) => store.putAgentState(a.terminalId, clone(a)),
    notifications: () => clone(attention.raised),
    startMarks: () => (marks ? clone(marks.report()) : null),
  };
  Object.defineProperty(window, '__reprise', { value: Object.freeze(hooks), configurable: false, writable: false });
}
