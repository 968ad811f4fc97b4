// Where a pane's typed bytes go: straight to its attachment when it can take
// them, otherwise into its InputHold, which is delivered, in order and before
// anything typed later, as soon as the pane can send again.
//
// A line broken by a loss is not completed: when the pane's terminal is
// replaced (a daemon recovery) while a line was partly sent to the old one, or
// the connection drops within LOST_WINDOW_MS of sending part of a line (those
// keys may have died with the host), what was typed meanwhile (held) is
// refused, visibly, instead of being sent: after a recovery the rest of the
// broken line (the new shell never saw its start, and a suffix of a command
// must not run as a command of its own); after a drop all of it (the shell
// still holds the uncertain start, and anything sent would be appended to it).
// What is typed once the pane can send again goes through as typed.

import { InputHold, type HoldState } from './hold';

/** Keys sent this soon before the connection dropped may not have reached the host. */
export const LOST_WINDOW_MS = 500;

function lineEnd(b: number): boolean {
  return b === 0x0d || b === 0x0a || b === 0x03 || b === 0x04;
}

export interface GateState extends HoldState {
  /** Bytes of a line broken by a loss that were not sent (0: none). */
  cut: number;
  /** A line was being typed when its keys may have been lost (until the next line is sent). */
  broken: boolean;
  /** Bytes the host said never reached the terminal (inputLost; 0: none). */
  lost: number;
}

/** Whatever takes input (an Attachment). */
export interface InputSink {
  input(payload: Uint8Array): void;
}

export class InputGate {
  readonly hold: InputHold;
  /** Bytes sent to the current terminal since the last line end, and when the last were sent. */
  private partial = 0;
  private lastSent = -Infinity;
  /** Dropping held input: the rest of a broken line, up to its end ('line'), or all of it. */
  private cutting: false | 'line' | 'all' = false;
  private cutBytes = 0;
  private broken = false;
  private lostBytes = 0;
  /** The host lost keys of the line being typed: refuse the rest of it, even as typed. */
  private lostLine = false;
  /** The cut is of a line begun in the pane's old terminal: it says so once it drops a key. */
  private retargetCut = false;
  private readonly now: () => number;

  /**
   * target: the sink to send to now, or null while the pane cannot send
   * (not attached, host unreachable, daemon restarting). onChange: the hold's
   * state changed (for the pane's notice).
   */
  constructor(
    private readonly target: () => InputSink | null,
    private readonly onChange: (s: GateState) => void = () => {},
    limit?: number,
    now?: () => number,
  ) {
    this.hold = new InputHold(limit);
    this.now = now ?? (() => performance.now());
  }

  get state(): GateState {
    return { ...this.hold.state, cut: this.cutBytes, broken: this.broken, lost: this.lostBytes };
  }

  send(payload: Uint8Array): void {
    if (this.hold.empty) {
      const sink = this.target();
      if (sink) {
        // Nothing was held: nothing to cut; what is typed now is typed on
        // purpose — unless the host lost keys of this very line.
        if (!this.lostLine) this.cutting = this.retargetCut = false;
        if (this.hold.state.refused > 0) {
          // Typing on after a refusal: the notice has been seen.
          this.hold.clearRefused();
          this.onChange(this.state);
        }
        this.deliver(sink, payload);
        return;
      }
    }
    this.hold.push(payload);
    this.flush();
    this.onChange(this.state);
  }

  /** Delivers what is held if the pane can send now; true when nothing is held any more. */
  flush(): boolean {
    if (this.hold.empty) return true;
    const sink = this.target();
    if (!sink) return false;
    for (const chunk of this.hold.take()) this.deliver(sink, chunk, true);
    // The cut covers only what was typed while the pane could not send.
    this.cutting = this.retargetCut = false;
    this.onChange(this.state);
    return true;
  }

  /** The connection dropped: a line partly sent just before may have lost keys. */
  connectionLost(): void {
    if (this.partial > 0 && this.now() - this.lastSent < LOST_WINDOW_MS) {
      this.broken = true;
      this.startCut('all');
      this.onChange(this.state);
    }
  }

  /**
   * The host could not deliver n bytes sent to the terminal (its handle was
   * gone, or the daemon died in that instant): the line they belong to is
   * broken, so the rest of it is refused, as after a drop, and the pane says so.
   */
  lost(n: number): void {
    this.lostBytes += n;
    this.broken = true;
    this.lostLine = true;
    this.startCut('line');
    this.onChange(this.state);
  }

  /**
   * Another terminal now takes this pane's input: a line partly sent to the
   * old one is gone. The rest of it, typed before the new terminal can take
   * keys (held now, or held from now until the pane is attached to it), is
   * refused up to its end; typed once the pane can send, it goes as typed.
   * (Only checking what was held at this instant let a resume's new agent
   * get "nd now?" of an "and now?" whose "a" went to the pane's old shell.)
   */
  newTarget(): void {
    if (this.partial > 0 && !this.cutting) {
      this.startCut('line');
      this.retargetCut = true;
      if (!this.hold.empty) {
        this.broken = true;
        this.onChange(this.state);
      }
    }
    this.partial = 0;
  }

  clear(): void {
    this.hold.clear();
    this.cutting = this.retargetCut = false;
    this.broken = false;
    this.cutBytes = 0;
    this.lostBytes = 0;
    this.lostLine = false;
  }

  private startCut(how: 'line' | 'all'): void {
    this.cutting = how;
    this.retargetCut = false;
    this.partial = 0;
  }

  /** held: bytes typed while the pane could not send (they do not clear the notice). */
  private deliver(sink: InputSink, bytes: Uint8Array, held = false): void {
    if (this.cutting) {
      const end = this.cutting === 'all' ? -1 : bytes.findIndex(lineEnd);
      if (this.retargetCut) {
        this.retargetCut = false;
        this.broken = true;
      }
      if (end < 0) {
        this.cutBytes += bytes.byteLength;
        this.onChange(this.state);
        return;
      }
      this.cutting = false;
      this.lostLine = false;
      this.cutBytes += end + 1;
      this.onChange(this.state);
      bytes = bytes.subarray(end + 1);
      if (bytes.byteLength === 0) return;
    } else if (this.broken && !held && bytes.some(lineEnd)) {
      // A line sent after the notice: it has been seen.
      this.broken = false;
      this.cutBytes = 0;
      this.lostBytes = 0;
      this.onChange(this.state);
    }
    sink.input(bytes);
    this.lastSent = this.now();
    let i = bytes.byteLength - 1;
    while (i >= 0 && !lineEnd(bytes[i]!)) i--;
    this.partial = i < 0 ? this.partial + bytes.byteLength : bytes.byteLength - 1 - i;
  }
}
