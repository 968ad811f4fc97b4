// The worker's logic, apart from the worker global so it can be tested: one
// WebSocket, its messages coalesced and handed to the page one batch at a
// time (the page says "next" when it has handled a batch).

import { Coalescer } from '../stream/coalesce';
import type { SocketLike } from './websocket';
import type { FromWorker, ToWorker } from './worker-protocol';

/** The worker's WebSocket: the same surface the transport uses on the main thread. */
export type WorkerSideSocket = SocketLike;

export interface PumpOptions {
  createSocket: (url: string) => WorkerSideSocket;
  post: (m: FromWorker, transfer?: Transferable[]) => void;
  /** Ends the worker (after the close has been passed on). */
  exit: () => void;
  maxPayload?: number;
}

export class SocketPump {
  private socket: WorkerSideSocket | null = null;
  private readonly queue: Coalescer;
  private inFlight = false;
  private closed = false;
  private closeSent = false;

  constructor(private readonly opts: PumpOptions) {
    this.queue = new Coalescer(opts.maxPayload);
  }

  fromPage(m: ToWorker): void {
    switch (m.t) {
      case 'open':
        this.open(m.url);
        return;
      case 'send':
        try {
          this.socket?.send(m.data);
        } catch {
          // The close that follows reports it.
        }
        return;
      case 'next':
        this.inFlight = false;
        this.flush();
        return;
      case 'close':
        this.closed = true;
        if (this.socket) {
          const s = this.socket;
          this.socket = null;
          s.onopen = s.onmessage = s.onerror = s.onclose = null;
          s.close();
        }
        this.opts.exit();
        return;
    }
  }

  private open(url: string): void {
    if (this.socket || this.closed) return;
    let s: WorkerSideSocket;
    try {
      s = this.opts.createSocket(url);
    } catch {
      this.closed = true;
      this.flush();
      return;
    }
    s.binaryType = 'arraybuffer';
    this.socket = s;
    s.onopen = () => this.opts.post({ t: 'open' });
    s.onerror = () => this.opts.post({ t: 'error' });
    s.onmessage = (ev) => {
      const d = ev.data;
      if (typeof d === 'string' || d instanceof ArrayBuffer) {
        this.queue.push(d);
        this.flush();
      }
    };
    s.onclose = () => {
      this.socket = null;
      this.closed = true;
      this.flush();
    };
  }

  /** Sends what is queued unless a batch is in flight; the close goes after the last batch. */
  private flush(): void {
    if (this.inFlight) return;
    if (!this.queue.empty) {
      const items = this.queue.take();
      this.inFlight = true;
      this.opts.post(
        { t: 'batch', items },
        items.filter((x): x is ArrayBuffer => typeof x !== 'string'),
      );
      return;
    }
    if (this.closed && !this.closeSent) {
      this.closeSent = true;
      this.opts.post({ t: 'close' });
    }
  }
}
