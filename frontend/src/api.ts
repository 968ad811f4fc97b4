// Types that cross the wire (docs/wire.md). The shapes are generated from the Go types and the
// host's method table into api.gen.ts (TestTypeScriptIsGenerated fails while it is stale); this
// file re-exports them and adds what Go cannot say: string unions and the Node union.

import type * as Gen from './api.gen';
import type { Binding, DaemonStatus, Layout, RestoreReport, Terminal } from './api.gen';

export { PROTOCOL_VERSION } from './api.gen';
export type {
  Agent,
  AgentState,
  AskpassPrompt,
  AttachResult,
  Binding,
  CreateAgentRequest,
  CreateAgentResult,
  DaemonStatus,
  ForegroundResult,
  HelloResult,
  HookStatus,
  HostInfo,
  HostStatus,
  Layout,
  PaneForecast,
  RestoreReport,
  ResumeResult,
  Session,
  Tab,
  Terminal,
} from './api.gen';

export type TerminalStatus = 'running' | 'exited' | 'lost' | 'closed';

export type Direction = 'row' | 'column';

// A layout node is one Go struct (Gen.GoNode); the page sees it as a union on `type`. Both
// members keep every other field of the Go type, and must stay assignable to it.
type NodeVariantFields = 'type' | 'terminalId' | 'direction' | 'sizes' | 'children';
type StrictOmit<T, K extends keyof T> = Omit<T, K>;

export interface PaneNode extends StrictOmit<Gen.GoNode, NodeVariantFields> {
  type: 'pane';
  terminalId: string;
}

export interface SplitNode extends StrictOmit<Gen.GoNode, NodeVariantFields> {
  type: 'split';
  direction: Direction;
  sizes: number[];
  children: Node[];
}

export type Node = PaneNode | SplitNode;

type Assert<T extends true> = T;
export type NodeFitsGo = Assert<Node extends Gen.GoNode ? true : false>;

/**
 * Method name → [params, result]: the generated table, where a successful call returns its
 * value (the host answers null only with an error).
 */
export type Methods = { [K in keyof Gen.Methods]: [Gen.Methods[K][0], NonNullable<Gen.Methods[K][1]>] };

export type Method = keyof Methods;

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
  /** Keys the host could not deliver to a terminal. */
  inputLost: InputLost;
}

/** web.InputLost: keys the page sent that never reached the terminal. */
export interface InputLost {
  handle: number;
  terminalId?: string;
  bytes: number;
  reason: string;
}

// Agents and bindings, mirroring backend/api/agents.go.

export type PromptTransport = 'argv' | 'stdin';
export type Tracking = 'hooks' | 'plugin' | 'none';

/** "" while the agent runs. */
export type EndReason = '' | 'detached' | 'terminal-exited' | 'disposed' | 'resumed';

/** Options of a resume. */
export interface ResumeOptions {
  /** First recreate the session's vanished folder (the binding's recreateCwd), then resume there. */
  recreateCwd?: boolean;
}

/**
 * The outcome of a resume launched in a terminal: resuming (not confirmed yet), resumed (the
 * agent confirmed it resumed that very session), fresh (it started another one), failed (it
 * exited first), unconfirmed (the agent reports nothing, so nobody can tell).
 */
export type ResumeOutcome = 'resuming' | 'resumed' | 'fresh' | 'failed' | 'unconfirmed';

export type SettingKey =
  | 'agents.onInterrupt'
  | 'agents.continueAfterRestart'
  | 'scrollback.persist'
  | 'sessions.retentionDays'
  | 'scrollback.retentionDays'
  | 'notify.when'
  | 'notify.sound';

/** What a pane does when Reprise (re)starts. */
export type ForecastAction = 'attach' | 'resume' | 'fresh' | 'cannot';

/** agents.onInterrupt: show a Resume button, or resume on its own. */
export type OnInterrupt = 'banner' | 'auto';
