// Where a pane's typed bytes go: straight to its attachment when it can take
// them, otherwise into its InputHold, which is delivered, in order and before
// anything typed later, as soon as the pane can send again.

import { InputHold, type HoldState } from './hold';

/** Whatever takes input (an Attachment). */
export interface InputSink {
  input(payload: Uint8Array): void;
}

export class InputGate {
  readonly hold: InputHold;

  /**
   * target: the sink to send to now, or null while the pane cannot send
   * (not attached, host unreachable, daemon restarting). onChange: the hold's
   * state changed (for the pane's notice).
   */
  constructor(
    private readonly target: () => InputSink | null,
    private readonly onChange: (s: HoldState) => void = () => {},
    limit?: number,
  ) {
    this.hold = new InputHold(limit);
  }

  send(payload: Uint8Array): void {
    if (this.hold.empty) {
      const sink = this.target();
      if (sink) {
        if (this.hold.state.refused > 0) {
          // Typing on after a refusal: the notice has been seen.
          this.hold.clearRefused();
          this.onChange(this.hold.state);
        }
        sink.input(payload);
        return;
      }
    }
    this.hold.push(payload);
    this.flush();
    this.onChange(this.hold.state);
  }

  /** Delivers what is held if the pane can send now; true when nothing is held any more. */
  flush(): boolean {
    if (this.hold.empty) return true;
    const sink = this.target();
    if (!sink) return false;
    for (const chunk of this.hold.take()) sink.input(chunk);
    this.onChange(this.hold.state);
    return true;
  }

  clear(): void {
    this.hold.clear();
  }
}
