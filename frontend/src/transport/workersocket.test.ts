import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, KIND_OUTPUT } from '../stream/frame';
import { SocketPump, type WorkerSideSocket } from './pump';
import type { FromWorker, ToWorker } from './worker-protocol';
import { WorkerSocket, type WorkerLike } from './workersocket';

const enc = new TextEncoder();
const dec = new TextDecoder();
const out = (handle: number, s: string): ArrayBuffer => encodeFrame(KIND_OUTPUT, handle, enc.encode(s)).buffer as ArrayBuffer;
const show = (d: unknown): string => {
  if (typeof d === 'string') return d;
  const f = decodeFrame(d as ArrayBuffer);
  return `${f?.handle}:${dec.decode(f?.payload)}`;
};
const tick = () => new Promise((r) => setTimeout(r, 0));

/** The host's WebSocket as the worker sees it. */
class HostSocket implements WorkerSideSocket {
  binaryType = 'blob';
  readyState = 1;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  sent: unknown[] = [];
  closed = false;
  constructor(readonly url: string) {}
  send(data: string | ArrayBufferLike | ArrayBufferView): void {
    this.sent.push(typeof data === 'string' ? data : dec.decode(data as Uint8Array));
  }
  close(): void {
    this.closed = true;
  }
}

/**
 * A worker and the page joined by two asynchronous channels, like postMessage:
 * each message is delivered in its own later task.
 */
function setup() {
  const sockets: HostSocket[] = [];
  let exited = false;
  const worker: WorkerLike & { terminated: boolean } = {
    onmessage: null,
    onerror: null,
    terminated: false,
    postMessage: (m: ToWorker) => setTimeout(() => pump.fromPage(m), 0),
    terminate() {
      this.terminated = true;
    },
  };
  const posted: FromWorker[] = [];
  const pump = new SocketPump({
    createSocket: (url) => {
      const s = new HostSocket(url);
      sockets.push(s);
      return s;
    },
    post: (m) => {
      posted.push(m);
      setTimeout(() => worker.onmessage?.({ data: m } as MessageEvent<FromWorker>), 0);
    },
    exit: () => (exited = true),
  });
  const page = new WorkerSocket('ws://h/ws?token=t', worker);
  const got: string[] = [];
  page.onmessage = (ev) => got.push(show(ev.data));
  return { page, worker, pump, sockets, got, posted, exited: () => exited };
}

describe('WorkerSocket over SocketPump', () => {
  it('opens the socket in the worker and reports open', async () => {
    const { page, sockets } = setup();
    let opened = false;
    page.onopen = () => (opened = true);
    expect(page.readyState).toBe(0);
    await tick();
    expect(sockets.map((s) => s.url)).toEqual(['ws://h/ws?token=t']);
    expect(sockets[0]!.binaryType).toBe('arraybuffer');
    sockets[0]!.onopen?.({});
    await tick();
    expect(opened).toBe(true);
    expect(page.readyState).toBe(1);
  });

  it('passes a message on at once when the page is idle, and merges what arrives while it is busy', async () => {
    const { sockets, got, posted } = setup();
    await tick();
    const s = sockets[0]!;
    s.onopen?.({});
    s.onmessage?.({ data: out(1, 'echo') });
    // The first batch is in flight: these wait in the worker and merge.
    s.onmessage?.({ data: out(1, 'a') });
    s.onmessage?.({ data: out(1, 'b') });
    s.onmessage?.({ data: '{"event":"layout"}' });
    s.onmessage?.({ data: out(1, 'c') });
    s.onmessage?.({ data: out(2, 'd') });
    for (let i = 0; i < 6; i++) await tick();
    expect(got).toEqual(['1:echo', '1:ab', '{"event":"layout"}', '1:c', '2:d']);
    const batches = posted.filter((m) => m.t === 'batch');
    // echo | a+b, the event | c, d
    expect(batches.length).toBe(3);
  });

  it('sends the page’s messages in order', async () => {
    const { page, sockets } = setup();
    await tick();
    sockets[0]!.onopen?.({});
    await tick();
    page.send('{"method":"hello"}');
    page.send(encodeFrame(2, 1, enc.encode('ls\r')));
    page.send('{"method":"ack"}');
    await tick();
    await tick();
    expect(sockets[0]!.sent.length).toBe(3);
    expect(sockets[0]!.sent[0]).toBe('{"method":"hello"}');
    expect(sockets[0]!.sent[2]).toBe('{"method":"ack"}');
  });

  it('reports the close only after the last output has been handed over', async () => {
    const { page, sockets, got, worker } = setup();
    let closedAt = -1;
    page.onclose = () => (closedAt = got.length);
    await tick();
    const s = sockets[0]!;
    s.onopen?.({});
    s.onmessage?.({ data: out(1, 'x') });
    s.onmessage?.({ data: out(1, 'y') });
    s.onclose?.({});
    for (let i = 0; i < 8; i++) await tick();
    expect(got).toEqual(['1:x', '1:y']);
    expect(closedAt).toBe(2);
    expect(page.readyState).toBe(3);
    expect(worker.terminated).toBe(true);
  });

  it('keeps going when a message handler throws', async () => {
    const { page, sockets } = setup();
    const seen: string[] = [];
    page.onmessage = (ev) => {
      seen.push(show(ev.data));
      if (seen.length === 1) throw new Error('boom');
    };
    const errs: unknown[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => errs.push(a);
    try {
      await tick();
      const s = sockets[0]!;
      s.onopen?.({});
      s.onmessage?.({ data: out(1, 'one') });
      s.onmessage?.({ data: out(1, 'two') });
      for (let i = 0; i < 6; i++) await tick();
    } finally {
      console.error = orig;
    }
    expect(seen).toEqual(['1:one', '1:two']);
    expect(errs.length).toBe(1);
  });

  it('closes the socket and ends the worker when the page closes', async () => {
    const { page, sockets, exited } = setup();
    await tick();
    sockets[0]!.onopen?.({});
    await tick();
    page.close();
    expect(page.readyState).toBe(3);
    expect(() => page.send('late')).toThrow();
    await tick();
    expect(sockets[0]!.closed).toBe(true);
    expect(exited()).toBe(true);
  });
});
