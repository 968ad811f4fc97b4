// Transport over one WebSocket: JSON text messages for requests, responses,
// notifications and events; binary messages for pty bytes. Reconnects with
// backoff whenever the socket closes (the host may restart).

import { realTimers, type Timers } from '../stream/scheduler';
import { socketURL } from './endpoint';
import { Emitter, type ConnectionState, type Endpoint, type Transport } from './transport';

/** The part of the browser WebSocket this transport uses (so tests can fake it). */
export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(): void;
}

const OPEN = 1;

export interface WebSocketTransportOptions {
  endpoint: () => Promise<Endpoint>;
  createSocket?: (url: string) => SocketLike;
  timers?: Timers;
  /** First retry delay; doubles up to maxDelayMs. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Random jitter in [0,1); Math.random by default. */
  random?: () => number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class WebSocketTransport implements Transport {
  private socket: SocketLike | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private events = new Emitter<[string, unknown]>();
  private binary = new Emitter<[Uint8Array]>();
  private states = new Emitter<[ConnectionState]>();
  private current: ConnectionState = 'closed';
  private attempt = 0;
  private retryTimer: unknown = null;
  private closed = false;
  private started: Promise<void> | null = null;
  private resolveStarted: (() => void) | null = null;
  private readonly opts: Required<WebSocketTransportOptions>;

  constructor(opts: WebSocketTransportOptions) {
    this.opts = {
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      timers: realTimers,
      minDelayMs: 250,
      maxDelayMs: 5000,
      random: Math.random,
      ...opts,
    };
  }

  get state(): ConnectionState {
    return this.current;
  }

  connect(): Promise<void> {
    if (!this.started) {
      this.started = new Promise((resolve) => (this.resolveStarted = resolve));
      this.setState('connecting');
      void this.open();
    }
    return this.started;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const sock = this.socket;
    if (!sock || sock.readyState !== OPEN || this.current !== 'open') {
      return Promise.reject(new Error(`${method}: not connected`));
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        sock.send(JSON.stringify({ id, method, params: params ?? {} }));
      } catch (err) {
        this.pending.delete(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  notify(method: string, params: unknown): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify({ method, params: params ?? {} }));
  }

  sendBinary(data: Uint8Array): void {
    if (this.socket?.readyState === OPEN) this.socket.send(data);
  }

  onEvent(cb: (event: string, data: unknown) => void): () => void {
    return this.events.on(cb);
  }

  onBinary(cb: (data: Uint8Array) => void): () => void {
    return this.binary.on(cb);
  }

  onState(cb: (state: ConnectionState) => void): () => void {
    return this.states.on(cb);
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) this.opts.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const sock = this.socket;
    this.socket = null;
    if (sock) {
      sock.onclose = sock.onerror = sock.onmessage = sock.onopen = null;
      sock.close();
    }
    this.failPending('connection closed');
    this.setState('closed');
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    let url: string;
    try {
      url = socketURL(await this.opts.endpoint());
    } catch (err) {
      console.warn('reprise: endpoint discovery failed', err);
      this.retry();
      return;
    }
    if (this.closed) return;
    let sock: SocketLike;
    try {
      sock = this.opts.createSocket(url);
    } catch (err) {
      console.warn('reprise: websocket failed', err);
      this.retry();
      return;
    }
    sock.binaryType = 'arraybuffer';
    this.socket = sock;
    sock.onopen = () => {
      if (this.socket !== sock) return;
      this.attempt = 0;
      this.setState('open');
      this.resolveStarted?.();
      this.resolveStarted = null;
    };
    sock.onmessage = (ev) => {
      if (this.socket === sock) this.handleMessage(ev.data);
    };
    sock.onerror = () => {
      // onclose follows and schedules the retry.
    };
    sock.onclose = () => {
      if (this.socket !== sock) return;
      this.socket = null;
      this.failPending('connection lost');
      this.retry();
    };
  }

  private retry(): void {
    if (this.closed) return;
    this.setState(this.resolveStarted ? 'connecting' : 'reconnecting');
    const base = Math.min(this.opts.maxDelayMs, this.opts.minDelayMs * 2 ** this.attempt);
    const delay = base / 2 + (base / 2) * this.opts.random();
    this.attempt++;
    this.retryTimer = this.opts.timers.setTimeout(() => {
      this.retryTimer = null;
      void this.open();
    }, delay);
  }

  private handleMessage(data: unknown): void {
    if (data instanceof ArrayBuffer) {
      this.binary.emit(new Uint8Array(data));
      return;
    }
    if (ArrayBuffer.isView(data)) {
      this.binary.emit(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      return;
    }
    if (typeof data !== 'string') return;
    let msg: { id?: number; result?: unknown; error?: string; event?: string; data?: unknown };
    try {
      msg = JSON.parse(data);
    } catch {
      console.warn('reprise: bad message from host', data.slice(0, 200));
      return;
    }
    if (typeof msg.event === 'string') {
      this.events.emit(msg.event, msg.data);
      return;
    }
    if (typeof msg.id === 'number') {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error));
      else p.resolve(msg.result);
    }
  }

  private failPending(why: string): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(new Error(why));
  }

  private setState(s: ConnectionState): void {
    if (s === this.current) return;
    this.current = s;
    this.states.emit(s);
  }
}
