// Types that cross the wire, mirroring backend/api/api.go (docs/wire.md).

export const PROTOCOL_VERSION = 1;

export type TerminalStatus = 'running' | 'exited' | 'lost' | 'closed';

export interface Terminal {
  id: string;
  pid: number;
  cwd: string;
  argv: string[] | null;
  status: TerminalStatus | string;
  exitCode?: number;
  exitSignal?: string;
  createdAt: string;
  endedAt?: string;
  restoredFrom?: string;
  restoredEndedAt?: string;
  paneId?: string;
  foreground?: string;
}

export type Direction = 'row' | 'column';

export interface PaneNode {
  type: 'pane';
  id: string;
  terminalId: string;
}

export interface SplitNode {
  type: 'split';
  id: string;
  direction: Direction;
  sizes: number[];
  children: Node[];
}

export type Node = PaneNode | SplitNode;

export interface Tab {
  id: string;
  title: string;
  root: Node;
  focusedPaneId: string;
}

export interface Layout {
  version: number;
  tabs: Tab[];
  activeTabId: string;
}

export interface HelloResult {
  version: number;
  layout: Layout;
  terminals: Terminal[];
  /** Sent by hosts that report the pty daemon's health. */
  daemon?: DaemonStatus;
}

export interface AttachResult {
  handle: number;
  terminal: Terminal;
}

export interface ForegroundResult {
  busy: boolean;
  command: string;
}

/** Method name → [params, result]. */
export interface Methods {
  hello: [Record<string, never>, HelloResult];
  attach: [{ terminalId: string; cols: number; rows: number }, AttachResult];
  detach: [{ handle: number }, Record<string, never>];
  resize: [{ terminalId: string; cols: number; rows: number }, Record<string, never>];
  'layout.get': [Record<string, never>, Layout];
  'layout.newTab': [{ cwd?: string }, Layout];
  'layout.split': [{ paneId: string; direction: Direction }, Layout];
  'layout.closePane': [{ paneId: string }, Layout];
  'layout.closeTab': [{ tabId: string }, Layout];
  /** Not in docs/wire.md yet: a fresh shell for a pane whose terminal ended. */
  'layout.restartPane': [{ paneId: string }, Layout];
  'layout.focus': [{ paneId: string }, Layout];
  'layout.activateTab': [{ tabId: string }, Layout];
  'layout.resize': [{ splitId: string; sizes: number[] }, Layout];
  'terminals.list': [Record<string, never>, Terminal[]];
  'terminals.foreground': [{ terminalId: string }, ForegroundResult];
}

export type Method = keyof Methods;

/** The pty daemon's health (event "daemon"). */
export interface DaemonStatus {
  state: 'up' | 'restarting' | 'failed' | string;
  pid?: number;
  message?: string;
}

export interface Events {
  layout: Layout;
  /** Any change of a terminal, including its exit. */
  terminal: Terminal;
  /** Named in docs/wire.md; newer hosts send exits as "terminal" events. */
  exit: Terminal;
  daemon: DaemonStatus;
}
