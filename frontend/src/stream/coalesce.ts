// Coalescing of host messages while the page's main thread is busy.
//
// The socket lives in a worker; the worker hands messages to the page one
// batch at a time and holds what arrives meanwhile. Consecutive output frames
// of one handle are merged into one frame (up to maxPayload bytes), so while
// xterm.js parses, a flood becomes a few large writes instead of hundreds of
// small message tasks, and an echo on an idle page still goes out at once.
// Text messages and other frames keep their order; a text message ends a
// batch.

import { HEADER_BYTES, KIND_OUTPUT } from './frame';

/** Roughly what xterm.js parses in one 12 ms write slice. */
export const MAX_MERGED_PAYLOAD = 256 * 1024;

export type Message = string | ArrayBuffer;

interface Open {
  handle: number;
  parts: Uint8Array[];
  bytes: number;
}

export class Coalescer {
  private items: (Message | Open)[] = [];
  private readonly maxPayload: number;

  constructor(maxPayload = MAX_MERGED_PAYLOAD) {
    this.maxPayload = maxPayload;
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  /** Queues one message from the socket. */
  push(m: Message): void {
    if (typeof m === 'string' || m.byteLength <= HEADER_BYTES) {
      this.items.push(m);
      return;
    }
    const bytes = new Uint8Array(m);
    const view = new DataView(m);
    if (view.getUint8(0) !== KIND_OUTPUT) {
      this.items.push(m);
      return;
    }
    const handle = view.getUint32(1, false);
    const payload = bytes.subarray(HEADER_BYTES);
    const last = this.items[this.items.length - 1];
    if (last !== undefined && isOpen(last) && last.handle === handle && last.bytes + payload.byteLength <= this.maxPayload) {
      last.parts.push(payload);
      last.bytes += payload.byteLength;
      return;
    }
    this.items.push({ handle, parts: [payload], bytes: payload.byteLength });
  }

  /**
   * The next batch, in order, merged: everything queued up to and including
   * the first text message. A text message (an event, a reply) ends a batch
   * so the page handles it in a task of its own and can draw a short-lived
   * state ("resuming…") before the next event replaces it.
   */
  take(): Message[] {
    let n = this.items.findIndex((it) => typeof it === 'string');
    n = n < 0 ? this.items.length : n + 1;
    const out = this.items.slice(0, n).map((it) => (isOpen(it) ? frameOf(it) : it));
    this.items = this.items.slice(n);
    return out;
  }
}

function isOpen(it: Message | Open): it is Open {
  return typeof it === 'object' && 'parts' in it;
}

function frameOf(o: Open): ArrayBuffer {
  const first = o.parts[0];
  if (o.parts.length === 1 && first !== undefined && first.byteOffset === HEADER_BYTES && first.buffer.byteLength === HEADER_BYTES + first.byteLength) {
    return first.buffer as ArrayBuffer; // a lone frame: pass the original on
  }
  const out = new Uint8Array(HEADER_BYTES + o.bytes);
  const view = new DataView(out.buffer);
  view.setUint8(0, KIND_OUTPUT);
  view.setUint32(1, o.handle >>> 0, false);
  let off = HEADER_BYTES;
  for (const p of o.parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out.buffer;
}
