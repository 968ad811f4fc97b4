import { describe, expect, it } from 'vitest';
import { ManualTimers } from '../stream/fakeTimers';
import { adoptToken, browserEndpoint, socketURL, TOKEN_KEY } from './endpoint';
import type { ConnectionState } from './transport';
import { WebSocketTransport, type SocketLike } from './websocket';

class FakeSocket implements SocketLike {
  binaryType = 'blob';
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  sent: (string | Uint8Array)[] = [];
  constructor(readonly url: string) {}
  send(data: string | ArrayBufferLike | ArrayBufferView): void {
    this.sent.push(typeof data === 'string' ? data : new Uint8Array(data as ArrayBuffer));
  }
  close(): void {
    this.readyState = 3;
  }
  // Test side.
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
  recv(data: unknown): void {
    this.onmessage?.({ data: typeof data === 'string' || data instanceof ArrayBuffer ? data : JSON.stringify(data) });
  }
  json(i: number): { id: number; method: string; params: unknown } {
    return JSON.parse(this.sent[i] as string);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const sockets: FakeSocket[] = [];
  const timers = new ManualTimers();
  const states: ConnectionState[] = [];
  const t = new WebSocketTransport({
    endpoint: async () => ({ url: 'ws://h:1/ws', token: 'a b' }),
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    timers,
    random: () => 0,
  });
  t.onState((s) => states.push(s));
  return { t, sockets, timers, states };
}

describe('endpoint', () => {
  it('builds the browser endpoint from the page location', () => {
    expect(browserEndpoint({ protocol: 'http:', host: '127.0.0.1:8080', search: '?x=1&token=abc' })).toEqual({
      url: 'ws://127.0.0.1:8080/ws',
      token: 'abc',
    });
    expect(browserEndpoint({ protocol: 'https:', host: 'h', search: '' })).toEqual({ url: 'wss://h/ws', token: '' });
  });

  it('takes the token from the fragment, keeps it for the tab and removes it from the address', () => {
    const stored = new Map<string, string>();
    const storage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) };
    const urls: string[] = [];
    const place = { storage, replaceURL: (u: string) => urls.push(u) };
    const loc = { protocol: 'http:', host: '127.0.0.1:8080', pathname: '/', search: '?renderer=dom', hash: '#token=abc' };
    expect(browserEndpoint(loc, place).token).toBe('abc');
    expect(stored.get(TOKEN_KEY)).toBe('abc');
    expect(urls).toEqual(['/?renderer=dom']);
    // After a reload the address has no token; the tab's storage does.
    expect(browserEndpoint({ ...loc, search: '?renderer=dom', hash: '' }, place).token).toBe('abc');
    expect(urls).toHaveLength(1);
    // A new address (a new launch's token) wins over the stored one; an old-style query token is removed too.
    expect(adoptToken({ ...loc, search: '?token=new&x=1', hash: '' }, place)).toBe('new');
    expect(stored.get(TOKEN_KEY)).toBe('new');
    expect(urls[1]).toBe('/?x=1');
  });

  it('puts the token in the query', () => {
    expect(socketURL({ url: 'ws://h/ws', token: 'a+b' })).toBe('ws://h/ws?token=a%2Bb');
    expect(socketURL({ url: 'ws://h/ws?x=1', token: 't' })).toBe('ws://h/ws?x=1&token=t');
    expect(socketURL({ url: 'ws://h/ws', token: '' })).toBe('ws://h/ws');
  });
});

describe('WebSocketTransport', () => {
  it('connects with the token, uses arraybuffer, and matches responses to requests', async () => {
    const { t, sockets } = setup();
    const ready = t.connect();
    await tick();
    expect(sockets[0]!.url).toBe('ws://h:1/ws?token=a%20b');
    expect(sockets[0]!.binaryType).toBe('arraybuffer');
    sockets[0]!.open();
    await ready;

    const a = t.request('layout.get', {});
    const b = t.request('terminals.foreground', { terminalId: 'x' });
    const s = sockets[0]!;
    expect(s.json(0)).toEqual({ id: 1, method: 'layout.get', params: {} });
    expect(s.json(1)).toEqual({ id: 2, method: 'terminals.foreground', params: { terminalId: 'x' } });
    s.recv({ id: 2, error: 'no such terminal' });
    s.recv({ id: 1, result: { version: 3 } });
    await expect(a).resolves.toEqual({ version: 3 });
    await expect(b).rejects.toThrow('no such terminal');
  });

  it('delivers events, binary messages and sends notifications', async () => {
    const { t, sockets } = setup();
    const ready = t.connect();
    await tick();
    sockets[0]!.open();
    await ready;
    const events: [string, unknown][] = [];
    const bins: number[][] = [];
    t.onEvent((e, d) => events.push([e, d]));
    t.onBinary((b) => bins.push(Array.from(b)));
    sockets[0]!.recv({ event: 'exit', data: { id: 't1' } });
    sockets[0]!.recv(new Uint8Array([1, 0, 0, 0, 5, 104]).buffer);
    t.notify('ack', { handle: 5, bytes: 1 });
    t.sendBinary(new Uint8Array([2, 0, 0, 0, 5, 65]));
    expect(events).toEqual([['exit', { id: 't1' }]]);
    expect(bins).toEqual([[1, 0, 0, 0, 5, 104]]);
    expect(sockets[0]!.json(0)).toEqual({ method: 'ack', params: { handle: 5, bytes: 1 } });
    expect(Array.from(sockets[0]!.sent[1] as Uint8Array)).toEqual([2, 0, 0, 0, 5, 65]);
  });

  it('rejects pending requests on close and reconnects with growing backoff', async () => {
    const { t, sockets, timers, states } = setup();
    const ready = t.connect();
    await tick();
    sockets[0]!.open();
    await ready;
    const p = t.request('hello', {});
    sockets[0]!.drop();
    await expect(p).rejects.toThrow('connection lost');
    await expect(t.request('hello', {})).rejects.toThrow('not connected');
    expect(t.state).toBe('reconnecting');

    // random() = 0 → delay is half the base: 125, 250, 500 …
    timers.advance(124);
    await tick();
    expect(sockets.length).toBe(1);
    timers.advance(1);
    await tick();
    expect(sockets.length).toBe(2);
    sockets[1]!.drop();
    timers.advance(249);
    await tick();
    expect(sockets.length).toBe(2);
    timers.advance(1);
    await tick();
    expect(sockets.length).toBe(3);
    sockets[2]!.open();
    expect(t.state).toBe('open');
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);

    // A successful open resets the backoff.
    sockets[2]!.drop();
    timers.advance(125);
    await tick();
    expect(sockets.length).toBe(4);
  });

  it('caps the backoff and stops for good on close()', async () => {
    const { t, sockets, timers } = setup();
    void t.connect();
    await tick();
    for (let i = 0; i < 10; i++) {
      sockets[sockets.length - 1]!.drop();
      timers.advance(2500);
      await tick();
    }
    expect(sockets.length).toBe(11);
    t.close();
    sockets[sockets.length - 1]!.drop();
    timers.advance(10000);
    await tick();
    expect(sockets.length).toBe(11);
    expect(t.state).toBe('closed');
  });
});
