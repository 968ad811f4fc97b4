// Output flow control for one attachment (docs/wire.md "Flow control").
//
// Bytes are counted when handed to xterm (written) and again from xterm's
// write callback (rendered). Rendered bytes are acknowledged to the host in
// batches: as soon as ackBytes are pending, or idleMs after the last render
// callback so a quiet terminal never leaves bytes unacknowledged.

import { realTimers, type Timers } from './scheduler';

// Well under the daemon's smallest window (48 KiB, resumed under 3/4 of it), so that a slow
// pane's output keeps flowing in small steps instead of stalling until the idle ack.
export const ACK_BYTES = 16 * 1024;
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
