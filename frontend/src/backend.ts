// The one typed facade over the host (docs/wire.md). Everything the UI asks of
// the host goes through here; components and the terminal view never see the
// transport, so they work the same in the desktop app and in a browser.

import type {
  Agent,
  AgentState,
  AskpassPrompt,
  AttachResult,
  Binding,
  DaemonStatus,
  HostInfo,
  HostStatus,
  Direction,
  ForegroundResult,
  HelloResult,
  InputLost,
  Layout,
  Method,
  Methods,
  RestoreReport,
  ResumeOptions,
  ResumeResult,
  CreateAgentRequest,
  CreateAgentResult,
  Session,
  SettingKey,
  Terminal,
} from './api';
import { decodeFrame, encodeFrame, KIND_INPUT, KIND_OUTPUT } from './stream/frame';
import { Emitter, type Transport } from './transport/transport';

export type BackendState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** One attachment of a terminal: its output arrives at the sink given to attach. */
export interface Attachment {
  readonly handle: number;
  readonly terminal: Terminal;
  /** How many output bytes from the start are the replay of old output. */
  readonly replayBytes: number;
  /** Sends input bytes (one kind-2 frame). */
  input(payload: Uint8Array): void;
  /**
   * Acknowledges rendered output bytes; rate: bytes/s the terminal draws while it has output
   * waiting (stream/feeder.ts drainRate), which sizes the daemon's window; 0 or absent: unknown.
   * queued: bytes received and not yet drawn, which the daemon keeps near 10 ms of drawing
   * (docs/wire.md "Flow control"); sent only with a rate, absent: unknown.
   */
  ack(bytes: number, rate?: number, queued?: number): void;
  /** Stops routing output here and tells the host (best effort). */
  detach(): void;
  /** False once detached or once the connection it was made on is gone. */
  readonly live: boolean;
}

export type OutputSink = (payload: Uint8Array) => void;

/** Output that arrives for a handle before its attach response is processed is held, up to this much. */
const EARLY_LIMIT = 8 << 20;
/** How long the first hello may wait for the start's prefetched replays to be parsed. */
export const FIRST_HELLO_HOLD_MS = 200;

export class Backend {
  private readonly t: Transport;
  private sinks = new Map<number, OutputSink>();
  private early = new Map<number, { chunks: Uint8Array[]; bytes: number }>();
  /** Detached handles: output still in flight for them is dropped, not held. */
  private dead = new Set<number>();
  /** Bumped on every new connection; attachments from older ones are dead. */
  private generation = 0;
  private current: BackendState = 'connecting';
  private opened = false;
  private readonly stateEmitter = new Emitter<[BackendState]>();
  private readonly layoutEmitter = new Emitter<[Layout]>();
  private readonly terminalEmitter = new Emitter<[Terminal]>();
  private readonly exitEmitter = new Emitter<[Terminal]>();
  private readonly daemonEmitter = new Emitter<[DaemonStatus]>();
  private readonly hostEmitter = new Emitter<[HostStatus]>();
  private readonly askpassEmitter = new Emitter<[AskpassPrompt]>();
  private readonly inputLostEmitter = new Emitter<[InputLost]>();
  private readonly bindingEmitter = new Emitter<[Binding]>();
  private readonly restoreEmitter = new Emitter<[RestoreReport]>();
  private readonly helloEmitter = new Emitter<[HelloResult, boolean]>();
  private firstHello: Promise<HelloResult> | null = null;
  private resolveFirst: ((h: HelloResult) => void) | null = null;
  private readonly unsubs: (() => void)[] = [];

  constructor(transport: Transport) {
    this.t = transport;
    this.unsubs.push(
      transport.onBinary((data) => this.route(data)),
      transport.onEvent((event, data) => this.dispatch(event, data)),
      transport.onState((s) => this.onTransportState(s)),
    );
  }

  get state(): BackendState {
    return this.current;
  }

  /** Connects and says hello; resolves with the first hello. Later reconnects re-hello and fire onHello(…, true). */
  start(): Promise<HelloResult> {
    if (!this.firstHello) {
      this.firstHello = new Promise((resolve) => (this.resolveFirst = resolve));
      void this.t.connect();
      if (this.t.state === 'open') void this.onTransportState('open');
    }
    return this.firstHello;
  }

  stop(): void {
    for (const u of this.unsubs) u();
    this.t.close();
    this.setState('closed');
  }

  onState(cb: (s: BackendState) => void): () => void {
    return this.stateEmitter.on(cb);
  }
  onLayout(cb: (l: Layout) => void): () => void {
    return this.layoutEmitter.on(cb);
  }
  onTerminal(cb: (t: Terminal) => void): () => void {
    return this.terminalEmitter.on(cb);
  }
  onExit(cb: (t: Terminal) => void): () => void {
    return this.exitEmitter.on(cb);
  }
  /** Keys the host could not deliver to a terminal (docs/wire.md "Input"). */
  onInputLost(cb: (x: InputLost) => void): () => void {
    return this.inputLostEmitter.on(cb);
  }

  onDaemon(cb: (d: DaemonStatus) => void): () => void {
    return this.daemonEmitter.on(cb);
  }
  /** A remote host's link changed (event "host"). */
  onHost(cb: (h: HostStatus) => void): () => void {
    return this.hostEmitter.on(cb);
  }
  /** ssh asks the user something for a remote host (event "askpass": open, then closed). */
  onAskpass(cb: (p: AskpassPrompt) => void): () => void {
    return this.askpassEmitter.on(cb);
  }
  /** A terminal's binding changed (event "binding"). */
  onBinding(cb: (b: Binding) => void): () => void {
    return this.bindingEmitter.on(cb);
  }
  /** A new restore forecast (event "restore", after a daemon loss). */
  onRestore(cb: (r: RestoreReport) => void): () => void {
    return this.restoreEmitter.on(cb);
  }
  /** Every successful hello; reconnected is true after a reconnect (re-attach then). */
  onHello(cb: (h: HelloResult, reconnected: boolean) => void): () => void {
    return this.helloEmitter.on(cb);
  }

  hello(): Promise<HelloResult> {
    return this.call('hello', {});
  }

  /** The page's start phases (startmarks.ts) for the host's GET /v1/debug/marks; no reply. */
  reportStart(report: unknown): void {
    this.t.notify('debug.marks', report);
  }

  /** Called when the socket opens, before the hello (startmarks.ts, the start's prefetch). */
  onSocketOpen: (() => void) | null = null;
  /**
   * The first hello waits for this (at most FIRST_HELLO_HOLD_MS) before it is handed on: the
   * start's prefetched replays are parsed meanwhile, so the panes are opened with their screens
   * (docs/decisions.md "Start-up: attach at socket open"). It is given the hello, so panes
   * whose terminal the hello names differently can attach to the new one first. Events that
   * come meanwhile are held and handed on after the hello, in order; output is routed at once.
   */
  firstHelloHold: ((h: HelloResult) => Promise<unknown>) | null = null;
  private holding = false;
  private heldEvents: [string, unknown][] = [];

  /** lines: replay at most this many lines of what the terminal showed (0: all). */
  async attach(terminalId: string, cols: number, rows: number, sink: OutputSink, lines = 0): Promise<Attachment> {
    const gen = this.generation;
    const res: AttachResult = await this.call('attach', lines > 0 ? { terminalId, cols, rows, lines } : { terminalId, cols, rows });
    // Runs in the microtask right after the response, before the next socket
    // message, so the replay that follows the response lands here.
    if (gen !== this.generation) throw new Error('attach: connection lost');
    const handle = res.handle;
    this.sinks.set(handle, sink);
    const held = this.early.get(handle);
    this.early.delete(handle);
    if (held) for (const c of held.chunks) sink(c);
    let detached = false;
    const live = () => !detached && gen === this.generation;
    return {
      handle,
      terminal: res.terminal,
      replayBytes: res.replayBytes ?? 0,
      get live() {
        return live();
      },
      input: (payload) => {
        if (live() && payload.byteLength > 0) this.t.sendBinary(encodeFrame(KIND_INPUT, handle, payload));
      },
      ack: (bytes, rate = 0, queued) => {
        if (!live() || bytes <= 0) return;
        if (rate <= 0) this.t.notify('ack', { handle, bytes });
        else if (queued === undefined || queued < 0) this.t.notify('ack', { handle, bytes, rate: Math.round(rate) });
        else this.t.notify('ack', { handle, bytes, rate: Math.round(rate), queued: Math.round(queued) });
      },
      detach: () => {
        if (!live()) {
          detached = true;
          return;
        }
        detached = true;
        if (this.sinks.get(handle) === sink) this.sinks.delete(handle);
        this.early.delete(handle);
        this.dead.add(handle);
        this.call('detach', { handle }).catch(() => {});
      },
    };
  }

  resize(terminalId: string, cols: number, rows: number): Promise<void> {
    return this.call('resize', { terminalId, cols, rows }).then(() => undefined);
  }

  readonly layout = {
    get: (): Promise<Layout> => this.layoutCall('layout.get', {}),
    /** host: a remote host's name (absent: this machine). */
    newTab: (cwd?: string, host?: string): Promise<Layout> =>
      this.layoutCall('layout.newTab', { ...(cwd ? { cwd } : {}), ...(host ? { host } : {}) }),
    split: (paneId: string, direction: Direction): Promise<Layout> => this.layoutCall('layout.split', { paneId, direction }),
    closePane: (paneId: string): Promise<Layout> => this.layoutCall('layout.closePane', { paneId }),
    closeTab: (tabId: string): Promise<Layout> => this.layoutCall('layout.closeTab', { tabId }),
    restartPane: (paneId: string): Promise<Layout> => this.layoutCall('layout.restartPane', { paneId }),
    focus: (paneId: string): Promise<Layout> => this.layoutCall('layout.focus', { paneId }),
    activateTab: (tabId: string): Promise<Layout> => this.layoutCall('layout.activateTab', { tabId }),
    resize: (splitId: string, sizes: number[]): Promise<Layout> => this.layoutCall('layout.resize', { splitId, sizes }),
    renameTab: (tabId: string, title: string): Promise<Layout> => this.layoutCall('layout.renameTab', { tabId, title }),
    moveTab: (tabId: string, index: number): Promise<Layout> => this.layoutCall('layout.moveTab', { tabId, index }),
  };

  readonly terminals = {
    list: (): Promise<Terminal[]> => this.call('terminals.list', {}),
    foreground: (terminalId: string): Promise<ForegroundResult> => this.call('terminals.foreground', { terminalId }),
  };

  readonly agents = {
    list: (): Promise<Agent[]> => this.call('agents.list', {}).then((l) => l ?? []),
    /** Validation errors reject with the host's one line. */
    save: (agent: Agent): Promise<Agent> => this.call('agents.save', agent),
    /** A builtin back to its defaults. */
    reset: (id: string): Promise<Agent> => this.call('agents.reset', { id }),
    delete: (id: string): Promise<void> => this.call('agents.delete', { id }).then(() => undefined),
    installHooks: (id: string): Promise<Agent> => this.call('agents.installHooks', { id }),
    removeHooks: (id: string): Promise<Agent> => this.call('agents.removeHooks', { id }),
    /** A new tab unless req.paneId (then the agent replaces that pane's terminal). */
    run: (req: CreateAgentRequest): Promise<CreateAgentResult> => this.call('agents.run', req),
    /** What every pane's agent is doing (attention.Derive on the host). */
    states: (): Promise<AgentState[]> => this.call('agents.states', {}).then((l) => l ?? []),
  };

  readonly bindings = {
    list: (candidates = false): Promise<Binding[]> =>
      this.call('bindings.list', candidates ? { candidates } : {}).then((l) => l ?? []),
  };

  /** Relaunches an interrupted agent; the new terminal takes the dead one's pane (a layout event follows). */
  resume(terminalId: string, opts: ResumeOptions = {}): Promise<ResumeResult> {
    return this.call('resume', opts.recreateCwd ? { terminalId, recreateCwd: true } : { terminalId });
  }

  readonly sessions = {
    /** Newest first. all: every session ever seen, not only live ones and resume candidates. */
    list: (opts: { all?: boolean; query?: string } = {}): Promise<Session[]> => {
      const params: { all?: boolean; query?: string } = {};
      if (opts.all) params.all = true;
      if (opts.query) params.query = opts.query;
      return this.call('sessions.list', params).then((l) => l ?? []);
    },
    /** Deletes a session's history row and its saved output. */
    forget: (agentId: string, sessionId: string): Promise<void> =>
      this.call('sessions.forget', { agentId, sessionId }).then(() => undefined),
  };

  readonly restore = {
    /** The forecast made when this host started, or after its last daemon loss. */
    report: (): Promise<RestoreReport> => this.call('restore.report', {}),
  };

  /** ssh's prompts (docs/remote.md "Prompts"): the open ones, and the user's answer. The secret is sent once and not kept. */
  readonly askpass = {
    pending: (): Promise<AskpassPrompt[]> => this.call('askpass.pending', {}).then((l) => l ?? []),
    answer: (id: string, a: { secret?: string; accept?: boolean; cancel?: boolean }): Promise<void> =>
      this.call('askpass.answer', { id, ...a }).then(() => undefined),
  };

  /** Remote hosts (reprise hosts …); errors reject with the host's one line. */
  readonly hosts = {
    list: (): Promise<HostInfo[]> => this.call('hosts.list', {}).then((l) => l ?? []),
    add: (name: string, ssh: string): Promise<HostInfo> => this.call('hosts.add', { name, ssh }),
    remove: (name: string): Promise<void> => this.call('hosts.remove', { name }).then(() => undefined),
  };

  readonly settings = {
    get: (key: SettingKey): Promise<string> => this.call('settings.get', { key }).then((r) => r?.value ?? ''),
    set: (key: SettingKey, value: string): Promise<void> => this.call('settings.set', { key, value }).then(() => undefined),
  };

  private call<M extends Method>(method: M, params: Methods[M][0]): Promise<Methods[M][1]> {
    return this.t.request<Methods[M][1]>(method, params);
  }

  /** Layout-changing calls also feed their result to onLayout listeners (the event may come too; versions dedupe). */
  private async layoutCall<M extends Method>(method: M, params: Methods[M][0]): Promise<Layout> {
    const layout = (await this.call(method, params)) as Layout;
    this.layoutEmitter.emit(layout);
    return layout;
  }

  private route(data: Uint8Array): void {
    const f = decodeFrame(data);
    if (!f || f.kind !== KIND_OUTPUT) return;
    const sink = this.sinks.get(f.handle);
    if (sink) {
      sink(f.payload);
      return;
    }
    if (this.dead.has(f.handle)) return;
    let held = this.early.get(f.handle);
    if (!held) this.early.set(f.handle, (held = { chunks: [], bytes: 0 }));
    if (held.bytes + f.payload.byteLength <= EARLY_LIMIT) {
      held.chunks.push(f.payload);
      held.bytes += f.payload.byteLength;
    }
  }

  private dispatch(event: string, data: unknown): void {
    if (this.holding) {
      this.heldEvents.push([event, data]);
      return;
    }
    switch (event) {
      case 'layout':
        this.layoutEmitter.emit(data as Layout);
        break;
      case 'terminal':
        this.terminalEmitter.emit(data as Terminal);
        break;
      case 'exit':
        this.exitEmitter.emit(data as Terminal);
        break;
      case 'daemon':
        this.daemonEmitter.emit(data as DaemonStatus);
        break;
      case 'host':
        this.hostEmitter.emit(data as HostStatus);
        break;
      case 'askpass':
        this.askpassEmitter.emit(data as AskpassPrompt);
        break;
      case 'binding':
        this.bindingEmitter.emit(data as Binding);
        break;
      case 'restore':
        this.restoreEmitter.emit(data as RestoreReport);
        break;
      case 'inputLost':
        this.inputLostEmitter.emit(data as InputLost);
        break;
      default:
        // Unknown events are from a newer host; ignore them.
        break;
    }
  }

  private async onTransportState(s: string): Promise<void> {
    if (s !== 'open') {
      if (s === 'reconnecting' || s === 'connecting') {
        // Handles die with the socket.
        this.forgetHandles();
        this.setState(this.opened ? 'reconnecting' : 'connecting');
      } else if (s === 'closed') {
        this.setState('closed');
      }
      return;
    }
    this.forgetHandles();
    this.onSocketOpen?.();
    const gen = this.generation;
    let h: HelloResult;
    try {
      h = await this.hello();
    } catch (err) {
      // The socket closed again (or the host refused); the next open retries.
      console.warn('reprise: hello failed', err);
      return;
    }
    if (gen !== this.generation) return;
    if (!this.opened && this.firstHelloHold) {
      const hold = this.firstHelloHold;
      this.firstHelloHold = null;
      this.holding = true;
      try {
        await Promise.race([
          Promise.resolve()
            .then(() => hold(h))
            .catch(() => {}),
          new Promise((r) => setTimeout(r, FIRST_HELLO_HOLD_MS)),
        ]);
      } finally {
        this.holding = false;
      }
      const held = this.heldEvents;
      this.heldEvents = [];
      if (gen !== this.generation) return;
      this.emitHello(h);
      for (const [e, d] of held) this.dispatch(e, d);
      return;
    }
    this.emitHello(h);
  }

  private emitHello(h: HelloResult): void {
    if (h.version !== 1) console.warn(`reprise: host speaks protocol ${h.version}, page speaks 1`);
    const reconnected = this.opened;
    this.opened = true;
    this.setState('open');
    this.helloEmitter.emit(h, reconnected);
    if (!reconnected && this.resolveFirst) {
      this.resolveFirst(h);
      this.resolveFirst = null;
    }
  }

  private forgetHandles(): void {
    this.generation++;
    this.sinks.clear();
    this.early.clear();
    this.dead.clear();
  }

  private setState(s: BackendState): void {
    if (s === this.current) return;
    this.current = s;
    this.stateEmitter.emit(s);
  }
}
