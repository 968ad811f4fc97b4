// Input held while a pane cannot deliver it (docs/wire.md "Input while not
// attached"): before its terminal is attached (window start, reload,
// reconnect, a daemon recovery) and while the host is unreachable. What is
// typed then is kept in order and handed over whole once the pane is attached
// again, up to HOLD_LIMIT bytes. Past the limit the pane refuses, visibly:
// the partial line at the end of what is held is refused too, so a prefix of
// a command never reaches a shell without the rest, and nothing more is taken
// until the held input has been delivered.

export const HOLD_LIMIT = 64 * 1024;

export interface HoldState {
  /** Bytes held, waiting for the pane to be attached. */
  held: number;
  /** Bytes refused since the last delivery (0: none). */
  refused: number;
}

/** Bytes after which a line may start: CR, LF, Ctrl+C, Ctrl+D. */
function isLineEnd(b: number): boolean {
  return b === 0x0d || b === 0x0a || b === 0x03 || b === 0x04;
}

export class InputHold {
  private chunks: Uint8Array[] = [];
  private bytes = 0;
  private refusedBytes = 0;
  /** Set once the limit was hit: everything is refused until the next delivery. */
  private refusing = false;

  constructor(private readonly limit = HOLD_LIMIT) {}

  get state(): HoldState {
    return { held: this.bytes, refused: this.refusedBytes };
  }

  get empty(): boolean {
    return this.bytes === 0;
  }

  /** Holds bytes; false when they were refused (the limit was reached). */
  push(bytes: Uint8Array): boolean {
    if (bytes.byteLength === 0) return true;
    if (!this.refusing && this.bytes + bytes.byteLength <= this.limit) {
      this.chunks.push(bytes.slice());
      this.bytes += bytes.byteLength;
      return true;
    }
    if (!this.refusing) {
      this.refusing = true;
      this.refusedBytes += this.dropPartialLine();
    }
    this.refusedBytes += bytes.byteLength;
    return false;
  }

  /** Hands over everything held, in order, and starts taking input again. */
  take(): Uint8Array[] {
    const out = this.chunks;
    this.chunks = [];
    this.bytes = 0;
    this.refusing = false;
    return out;
  }

  /** Forgets that input was refused (the user has seen it and typed on). */
  clearRefused(): void {
    this.refusedBytes = 0;
  }

  clear(): void {
    this.take();
    this.refusedBytes = 0;
  }

  /** Drops the held bytes after the last line end; returns how many. */
  private dropPartialLine(): number {
    let dropped = 0;
    for (let last = this.chunks.at(-1); last; last = this.chunks.at(-1)) {
      let i = last.byteLength - 1;
      while (i >= 0 && !isLineEnd(last[i]!)) i--;
      if (i >= 0) {
        const cut = last.byteLength - (i + 1);
        if (cut > 0) this.chunks[this.chunks.length - 1] = last.subarray(0, i + 1);
        dropped += cut;
        this.bytes -= cut;
        return dropped;
      }
      this.chunks.pop();
      dropped += last.byteLength;
      this.bytes -= last.byteLength;
    }
    return dropped;
  }
}
