// Output flow control for one attachment (docs/wire.md "Flow control").
//
// Bytes are counted when handed to xterm (written) and again from xterm's
// write callback (rendered). Rendered bytes are acknowledged to the host in
// batches: as soon as ackBytes are pending, or idleMs after the last render
// callback so a quiet terminal never leaves bytes unacknowledged.

import { realTimers, type Timers } from './scheduler';

// One feeder slice (stream/feeder.ts MIN_SLICE): every slice xterm parses is acknowledged at
// once. The daemon's window is only ~10 ms of this pane's drawing (8 KiB at the least, read
// again once a quarter of it is free), so bytes drawn but not yet acknowledged would hold the
// flood back, and a coarser ack would leave the window empty while the page still draws.
export const ACK_BYTES = 4 * 1024;
export const ACK_IDLE_MS = 50;

export interface FlowOptions {
  /** Sends one ack of n bytes to the host. */
  sendAck: (bytes: number) => void;
  ackBytes?: number;
  idleMs?: number;
  timers?: Timers;
}

export class FlowControl {
  /** Bytes handed to xterm. */
  written = 0;
  /** Bytes xterm reported rendered. */
  rendered = 0;
  /** Bytes acknowledged to the host. */
  acked = 0;

  private readonly sendAck: (bytes: number) => void;
  private readonly ackBytes: number;
  private readonly idleMs: number;
  private readonly timers: Timers;
  private idleTimer: unknown = null;
  private disposed = false;

  constructor(opts: FlowOptions) {
    this.sendAck = opts.sendAck;
    this.ackBytes = opts.ackBytes ?? ACK_BYTES;
    this.idleMs = opts.idleMs ?? ACK_IDLE_MS;
    this.timers = opts.timers ?? realTimers;
  }

  /** Rendered but not yet acknowledged. */
  get pending(): number {
    return this.rendered - this.acked;
  }

  /** Records n payload bytes handed to xterm.write. */
  onWrite(n: number): void {
    if (!this.disposed) this.written += n;
  }

  /** Records n bytes rendered (call from xterm's write callback). */
  onRendered(n: number): void {
    if (this.disposed) return;
    this.rendered += n;
    if (this.pending >= this.ackBytes) {
      this.flush();
      return;
    }
    this.cancelIdle();
    this.idleTimer = this.timers.setTimeout(() => {
      this.idleTimer = null;
      this.flush();
    }, this.idleMs);
  }

  /** Acknowledges everything rendered so far. */
  flush(): void {
    this.cancelIdle();
    if (this.disposed) return;
    const n = this.pending;
    if (n <= 0) return;
    this.acked += n;
    this.sendAck(n);
  }

  /** Stops acknowledging: the handle is gone (detached, or the socket closed). */
  dispose(): void {
    this.cancelIdle();
    this.disposed = true;
  }

  private cancelIdle(): void {
    if (this.idleTimer !== null) {
      this.timers.clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
  }
}
