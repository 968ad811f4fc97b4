// Keystroke batching (docs/wire.md "Input"): everything typed within one
// microtask is sent as one kind-2 frame, in order. WebSocket ordering keeps
// batches in order; a batch larger than maxFrame is split into several frames.

export const MAX_FRAME_PAYLOAD = 64 * 1024;

const encoder = new TextEncoder();

/** Text from xterm's onData: UTF-8. */
export function encodeData(data: string): Uint8Array {
  return encoder.encode(data);
}

/** Text from xterm's onBinary: one byte per UTF-16 code unit (a "binary string"). */
export function encodeBinary(data: string): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data.charCodeAt(i) & 0xff;
  return out;
}

export interface InputBatcherOptions {
  /** Sends one payload (the caller frames it with its current handle). */
  send: (payload: Uint8Array) => void;
  /** Defers the flush; default queueMicrotask. */
  schedule?: (fn: () => void) => void;
  maxFrame?: number;
}

export class InputBatcher {
  private queue: Uint8Array[] = [];
  private queued = 0;
  private scheduled = false;
  private readonly send: (payload: Uint8Array) => void;
  private readonly schedule: (fn: () => void) => void;
  private readonly maxFrame: number;

  constructor(opts: InputBatcherOptions) {
    this.send = opts.send;
    this.schedule = opts.schedule ?? ((fn) => queueMicrotask(fn));
    this.maxFrame = opts.maxFrame ?? MAX_FRAME_PAYLOAD;
  }

  pushData(data: string): void {
    this.push(encodeData(data));
  }

  pushBinary(data: string): void {
    this.push(encodeBinary(data));
  }

  push(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.queue.push(bytes);
    this.queued += bytes.byteLength;
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.queued === 0) return;
    const all = new Uint8Array(this.queued);
    let off = 0;
    for (const chunk of this.queue) {
      all.set(chunk, off);
      off += chunk.byteLength;
    }
    this.queue = [];
    this.queued = 0;
    for (let start = 0; start < all.byteLength; start += this.maxFrame) {
      this.send(all.subarray(start, Math.min(start + this.maxFrame, all.byteLength)));
    }
  }

  /** Drops anything not yet sent. */
  clear(): void {
    this.queue = [];
    this.queued = 0;
  }
}
