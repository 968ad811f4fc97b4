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
  /** lines: replay at most this many lines of what the terminal showed (absent: all). */
  attach: [{ terminalId: string; cols: number; rows: number; lines?: number }, AttachResult];
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
  'agents.list': [Record<string, never>, Agent[]];
  'agents.save': [Agent, Agent];
  'agents.reset': [{ id: string }, Agent];
  'agents.delete': [{ id: string }, Record<string, never> | null];
  'agents.installHooks': [{ id: string }, Agent];
  'agents.removeHooks': [{ id: string }, Agent];
  'agents.run': [RunAgentRequest, RunAgentResult];
  'bindings.list': [{ candidates?: boolean }, Binding[]];
  resume: [{ terminalId: string }, ResumeResult];
  'sessions.list': [{ all?: boolean; query?: string }, Session[]];
  'sessions.forget': [{ agentId: string; sessionId: string }, Record<string, never> | null];
  'restore.report': [Record<string, never>, RestoreReport];
  'settings.get': [{ key: SettingKey }, { value: string }];
  'settings.set': [{ key: SettingKey; value: string }, Record<string, never> | null];
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
  /** A terminal's binding changed (an agent started, was prompted, ended, was resumed). */
  binding: Binding;
  /** The forecast after a daemon loss (the one made at start is asked for with restore.report). */
  restore: RestoreReport;
}

// Agents and bindings, mirroring backend/api/agents.go.

export type PromptTransport = 'argv' | 'stdin';
export type Tracking = 'hooks' | 'plugin' | 'none';

/** Whether Reprise's hooks are installed in an agent's own config. */
export interface HookStatus {
  supported: boolean;
  installed: boolean;
  path?: string;
  note?: string;
}

/** One agent configuration as Settings → Agents shows it. */
export interface Agent {
  id: string;
  label: string;
  command: string;
  args: string[] | null;
  promptArgs: string[] | null;
  promptTransport: PromptTransport | string;
  /** The session id is appended after these; empty = cannot resume by id. */
  resumeArgs: string[] | null;
  env: Record<string, string> | null;
  sessionIdArgs: string[] | null;
  sessionIdKind: string;
  tracking: Tracking | string;
  builtin: boolean;
  /** A builtin changed away from its defaults. */
  edited: boolean;
  /** The command is on PATH. */
  found: boolean;
  path?: string;
  hooks?: HookStatus;
}

export interface RunAgentRequest {
  agent: string;
  prompt?: string;
  /** The agent's own session id to resume (not a terminal id). */
  resumeSessionId?: string;
  cwd?: string;
  /** Run in this pane (replacing its terminal); empty opens a new tab. */
  paneId?: string;
}

export interface RunAgentResult {
  terminalId: string;
  paneId: string;
  argv: string[];
  sessionId?: string;
}

/** "" while the agent runs. */
export type EndReason = '' | 'detached' | 'terminal-exited' | 'disposed' | 'resumed';

/** Which agent runs (or ran) in a terminal and how it ended. */
export interface Binding {
  terminalId: string;
  paneId?: string;
  agentId: string;
  agentLabel: string;
  sessionId?: string;
  cwd?: string;
  startedAt: string;
  lastEventAt: string;
  lastEvent?: string;
  prompted: boolean;
  endedAt?: string | null;
  endReason?: EndReason | string;
  /** The agent's config has resume args. */
  canResume: boolean;
  /** Session id known, prompted, and canResume. */
  resumable: boolean;
  /** Show the resume banner. */
  candidate: boolean;
  /** Why a terminal-exited session cannot be resumed. */
  unavailable?: string;
  /** Why the last resume of this candidate failed (e.g. an automatic one), for the banner. */
  resumeError?: string;
  /** The session a resume launched in this terminal was meant to bring back. */
  resumeOf?: string;
  /** How that resume went: "resuming" until the agent itself confirms or refutes it. */
  outcome?: ResumeOutcome | string;
  outcomeDetail?: string;
  outcomeAt?: string | null;
}

/**
 * The outcome of a resume launched in a terminal: resuming (not confirmed yet), resumed (the
 * agent confirmed it resumed that very session), fresh (it started another one), failed (it
 * exited first), unconfirmed (the agent reports nothing, so nobody can tell).
 */
export type ResumeOutcome = 'resuming' | 'resumed' | 'fresh' | 'failed' | 'unconfirmed';

/** One agent session from the history. */
export interface Session {
  agentId: string;
  agentLabel: string;
  sessionId: string;
  cwd: string;
  terminalId?: string;
  firstSeenAt: string;
  firstPromptAt?: string | null;
  lastActivityAt: string;
  endedAt?: string | null;
  endReason?: EndReason | string;
  live: boolean;
  resumable: boolean;
  candidate: boolean;
  lastOutcome?: string;
}

/** The terminal a resumed conversation now runs in. */
export interface ResumeResult {
  terminalId: string;
  paneId: string;
  agentId: string;
  sessionId: string;
  argv: string[];
  fromTerminalId: string;
  /** A concurrent or earlier resume launched it. */
  alreadyResumed?: boolean;
}

export type SettingKey =
  | 'agents.onInterrupt'
  | 'agents.continueAfterRestart'
  | 'scrollback.persist'
  | 'sessions.retentionDays'
  | 'scrollback.retentionDays';

/** What a pane does when Reprise (re)starts. */
export type ForecastAction = 'attach' | 'resume' | 'fresh' | 'cannot';

/** One pane's line of the restore forecast (`reprise restore-check`), mirroring backend/host/restore.go. */
export interface PaneForecast {
  tabId: string;
  paneId: string;
  /** The pane's terminal when the forecast was made (a lost one, for resume and fresh). */
  terminalId: string;
  action: ForecastAction | string;
  agent?: string;
  agentLabel?: string;
  sessionId?: string;
  /** The exact argv of the resume. */
  argv?: string[] | null;
  cwd?: string;
  reason: string;
  /** Where the agent keeps the conversation; "unknown" when Reprise does not know. */
  transcript?: string;
}

/** The forecast made when the host started (or after a daemon loss). */
export interface RestoreReport {
  at: string;
  /** "3 will resume · 1 fresh · 1 can't: codex not found" */
  summary: string;
  panes: PaneForecast[] | null;
  /** Some terminals were lost (daemon death or reboot). */
  recovered: boolean;
}

/** agents.onInterrupt: show a Resume button, or resume on its own. */
export type OnInterrupt = 'banner' | 'auto';
