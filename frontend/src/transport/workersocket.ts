// A SocketLike whose WebSocket lives in a worker (socket.worker.ts): the page
// gets the host's messages in batches, coalesced while it was busy.

import type { FromWorker, ToWorker } from './worker-protocol';
import type { SocketLike } from './websocket';

/** The part of a Worker this uses (so tests can fake it). */
export interface WorkerLike {
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  postMessage(m: ToWorker, transfer?: Transferable[]): void;
  terminate(): void;
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

export class WorkerSocket implements SocketLike {
  binaryType = 'arraybuffer';
  readyState = CONNECTING;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  private readonly worker: WorkerLike;

  constructor(url: string, worker: WorkerLike) {
    this.worker = worker;
    // A setter, not addEventListener: benchmarks wrap Worker.onmessage to time
    // the moment the page has handled a message.
    worker.onmessage = (ev) => this.fromWorker(ev.data);
    worker.onerror = () => this.fail();
    worker.postMessage({ t: 'open', url });
  }

  send(data: string | ArrayBufferLike | ArrayBufferView): void {
    if (this.readyState !== OPEN) throw new Error('socket not open');
    if (typeof data === 'string') this.worker.postMessage({ t: 'send', data });
    else if (ArrayBuffer.isView(data)) {
      // Cloning a view copies its whole buffer: pass exactly the bytes.
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      this.worker.postMessage({ t: 'send', data: bytes.byteLength === data.buffer.byteLength ? bytes : bytes.slice() });
    }
    else this.worker.postMessage({ t: 'send', data: data as ArrayBuffer });
  }

  close(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.worker.postMessage({ t: 'close' });
    this.worker.onmessage = null;
    this.worker.onerror = null;
  }

  private fromWorker(m: FromWorker): void {
    switch (m.t) {
      case 'open':
        this.readyState = OPEN;
        this.onopen?.({});
        return;
      case 'error':
        this.onerror?.({});
        return;
      case 'batch':
        try {
          for (const data of m.items) {
            if (this.readyState === CLOSED) break;
            try {
              this.onmessage?.({ data });
            } catch (err) {
              console.error('reprise: message handler failed', err);
            }
          }
        } finally {
          if (this.readyState !== CLOSED) this.worker.postMessage({ t: 'next' });
        }
        return;
      case 'close':
        this.fail();
        return;
    }
  }

  private fail(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.worker.onmessage = null;
    this.worker.onerror = null;
    this.worker.terminate();
    this.onclose?.({});
  }
}
