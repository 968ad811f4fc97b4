import { describe, expect, it } from 'vitest';
import type { HelloResult, Layout } from './api';
import { Backend } from './backend';
import { decodeFrame, encodeFrame, KIND_INPUT, KIND_OUTPUT } from './stream/frame';
import { Emitter, type ConnectionState, type Transport } from './transport/transport';

const layout: Layout = { version: 1, tabs: [], activeTabId: '' };
const hello: HelloResult = { version: 1, layout, terminals: [], daemon: { state: 'up' } };

/** A transport whose requests are answered by a handler, with hooks to push frames and events. */
class FakeTransport implements Transport {
  state: ConnectionState = 'connecting';
  events = new Emitter<[string, unknown]>();
  binary = new Emitter<[Uint8Array]>();
  states = new Emitter<[ConnectionState]>();
  sent: Uint8Array[] = [];
  notes: { method: string; params: unknown }[] = [];
  requests: { method: string; params: unknown }[] = [];
  /** Called after a response resolves, in the same task, like a socket message handler. */
  afterResponse: ((method: string, result: unknown) => void) | null = null;

  constructor(private handler: (method: string, params: unknown) => unknown) {}

  connect(): Promise<void> {
    return Promise.resolve();
  }
  request<T>(method: string, params: unknown): Promise<T> {
    this.requests.push({ method, params });
    if (this.state !== 'open') return Promise.reject(new Error('not connected'));
    const result = this.handler(method, params);
    return Promise.resolve(result as T);
  }
  notify(method: string, params: unknown): void {
    this.notes.push({ method, params });
  }
  onEvent(cb: (e: string, d: unknown) => void) {
    return this.events.on(cb);
  }
  sendBinary(data: Uint8Array): void {
    this.sent.push(data);
  }
  onBinary(cb: (d: Uint8Array) => void) {
    return this.binary.on(cb);
  }
  onState(cb: (s: ConnectionState) => void) {
    return this.states.on(cb);
  }
  close(): void {}
  setState(s: ConnectionState) {
    this.state = s;
    this.states.emit(s);
  }
  output(handle: number, text: string) {
    this.binary.emit(encodeFrame(KIND_OUTPUT, handle, new TextEncoder().encode(text)));
  }
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  let nextHandle = 1;
  const t = new FakeTransport((method) => {
    switch (method) {
      case 'hello':
        return hello;
      case 'attach':
        return { handle: nextHandle++, terminal: { id: 't1' } };
      default:
        return layout;
    }
  });
  const b = new Backend(t);
  return { t, b };
}

async function started() {
  const s = setup();
  const p = s.b.start();
  s.t.setState('open');
  await p;
  return s;
}

describe('Backend', () => {
  it('says hello on open and reports open', async () => {
    const { t, b } = await started();
    expect(t.requests[0]?.method).toBe('hello');
    expect(b.state).toBe('open');
  });

  it("the first hello's hold is given the hello, and what it asks for goes out before the hello is handed on", async () => {
    const { t, b } = setup();
    const order: string[] = [];
    let release!: () => void;
    b.firstHelloHold = (h) => {
      order.push(`hold saw layout v${h.layout.version}`);
      void b.attach('t-new', 80, 24, () => {}).then(() => order.push('attached t-new'));
      return new Promise<void>((r) => (release = r));
    };
    b.onHello(() => order.push('hello handed on'));
    const first = b.start();
    t.setState('open');
    await flush();
    expect(order).toEqual(['hold saw layout v1', 'attached t-new']);
    expect(t.requests.map((r) => r.method)).toEqual(['hello', 'attach']);
    release();
    await first;
    expect(order).toEqual(['hold saw layout v1', 'attached t-new', 'hello handed on']);
  });

  it('asks for at most the lines the view keeps, and nothing extra when it does not say', async () => {
    const { t, b } = await started();
    await b.attach('t1', 80, 24, () => {}, 10024);
    await b.attach('t2', 100, 30, () => {});
    const attaches = t.requests.filter((r) => r.method === 'attach').map((r) => r.params);
    expect(attaches).toEqual([
      { terminalId: 't1', cols: 80, rows: 24, lines: 10024 },
      { terminalId: 't2', cols: 100, rows: 30 },
    ]);
  });

  it('routes output frames to the attachment that owns the handle', async () => {
    const { t, b } = await started();
    const a: string[] = [];
    const c: string[] = [];
    const att1 = await b.attach('t1', 80, 24, (p) => a.push(new TextDecoder().decode(p)));
    const att2 = await b.attach('t2', 80, 24, (p) => c.push(new TextDecoder().decode(p)));
    t.output(att2.handle, 'two');
    t.output(att1.handle, 'one');
    t.binary.emit(encodeFrame(KIND_INPUT, att1.handle, new Uint8Array([1]))); // wrong kind: ignored
    t.binary.emit(new Uint8Array([1, 0])); // runt: ignored
    expect(a).toEqual(['one']);
    expect(c).toEqual(['two']);
  });

  it('holds output that arrives before the attach response and delivers it in order', async () => {
    const { t, b } = await started();
    // The host's replay for handle 1 overtakes the response.
    t.output(1, 'early-1 ');
    t.output(1, 'early-2 ');
    const got: string[] = [];
    const att = await b.attach('t1', 80, 24, (p) => got.push(new TextDecoder().decode(p)));
    t.output(att.handle, 'live');
    expect(got.join('')).toBe('early-1 early-2 live');
  });

  it('frames input with the handle and sends acks as notifications', async () => {
    const { t, b } = await started();
    const att = await b.attach('t1', 80, 24, () => {});
    att.input(new TextEncoder().encode('ls\r'));
    att.ack(1234);
    att.ack(0);
    att.ack(10, 2_000_000.4);
    att.ack(11, 2_000_000, 0);
    att.ack(12, 2_000_000, 20_000.2);
    att.ack(13, 0, 5);
    const f = decodeFrame(t.sent[0]!)!;
    expect(f.kind).toBe(KIND_INPUT);
    expect(f.handle).toBe(att.handle);
    expect(new TextDecoder().decode(f.payload)).toBe('ls\r');
    expect(t.notes).toEqual([
      { method: 'ack', params: { handle: att.handle, bytes: 1234 } },
      { method: 'ack', params: { handle: att.handle, bytes: 10, rate: 2_000_000 } },
      { method: 'ack', params: { handle: att.handle, bytes: 11, rate: 2_000_000, queued: 0 } },
      { method: 'ack', params: { handle: att.handle, bytes: 12, rate: 2_000_000, queued: 20_000 } },
      { method: 'ack', params: { handle: att.handle, bytes: 13 } },
    ]);
  });

  it('detach stops routing, drops in-flight output and tells the host', async () => {
    const { t, b } = await started();
    const got: string[] = [];
    const att = await b.attach('t1', 80, 24, (p) => got.push(new TextDecoder().decode(p)));
    att.detach();
    t.output(att.handle, 'late');
    att.input(new Uint8Array([65]));
    att.ack(5);
    expect(got).toEqual([]);
    expect(t.sent).toEqual([]);
    expect(t.notes).toEqual([]);
    expect(t.requests.at(-1)).toEqual({ method: 'detach', params: { handle: att.handle } });
    expect(att.live).toBe(false);
  });

  it('after a reconnect: old attachments are dead, hello again, listeners told to re-attach', async () => {
    const { t, b } = await started();
    const reconnects: boolean[] = [];
    const states: string[] = [];
    b.onHello((_h, re) => reconnects.push(re));
    b.onState((s) => states.push(s));
    const got: string[] = [];
    const att = await b.attach('t1', 80, 24, (p) => got.push(new TextDecoder().decode(p)));
    t.setState('reconnecting');
    expect(att.live).toBe(false);
    att.input(new Uint8Array([65]));
    expect(t.sent).toEqual([]);
    t.setState('open');
    await flush();
    expect(reconnects).toEqual([true]);
    expect(states).toEqual(['reconnecting', 'open']);
    // The same handle number on the new connection is not routed to the old sink.
    t.output(att.handle, 'new connection');
    expect(got).toEqual([]);
  });

  it('feeds layout results and events to onLayout', async () => {
    const { t, b } = await started();
    const seen: number[] = [];
    b.onLayout((l) => seen.push(l.version));
    await b.layout.split('p1', 'row');
    t.events.emit('layout', { ...layout, version: 7 });
    t.events.emit('unknown-future-event', {});
    expect(seen).toEqual([1, 7]);
    const daemon: string[] = [];
    b.onDaemon((d) => daemon.push(d.state));
    t.events.emit('daemon', { state: 'restarting' });
    expect(daemon).toEqual(['restarting']);
    expect(t.requests.at(-1)).toEqual({ method: 'layout.split', params: { paneId: 'p1', direction: 'row' } });
  });
});
