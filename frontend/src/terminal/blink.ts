// The cursor's blink for the DOM renderer, done here instead of by xterm.js.
//
// xterm.js's DOM renderer blinks the cursor with an infinite CSS animation. While any CSS
// animation runs, Chromium keeps producing frames, and after a key event it renders one before
// it runs the next task: the echo's write and the repaint of its row then wait for those frames.
// Measured in headless Chromium (bare xterm.js, 60 keys, echo from a 0 ms timeout): key → echo
// drawn p50 23–27 ms with xterm's blink, 4–6 ms with the blink off or with this one, which
// toggles one class (cursor-blink-off on the terminal's element, styles.css) every BLINK_MS,
// so nothing animates between two toggles. Like xterm's own blink, the cursor stays solid
// while keys or output keep coming (poke) and blinks only while the terminal has the focus.
//
// The WebGL renderer blinks from a JS timer of its own (no CSS animation); the view leaves it to
// xterm there (TerminalView.applyBlink).

import { realTimers, type Timers } from '../stream/scheduler';

/** Half a blink period: the cursor is shown this long, then hidden this long (xterm's value). */
export const BLINK_MS = 600;

export class CursorBlinker {
  private enabled = false;
  private focused = false;
  private off = false;
  private timer: unknown = null;

  /** setOff(true) hides the cursor, setOff(false) shows it. */
  constructor(
    private readonly setOff: (off: boolean) => void,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Whether the cursor blinks at all (the preference, and the renderer being the DOM one). */
  setEnabled(enabled: boolean): void {
    if (this.enabled === enabled) return;
    this.enabled = enabled;
    this.restart();
  }

  /** The terminal got or lost the focus: only a focused cursor blinks. */
  setFocused(focused: boolean): void {
    if (this.focused === focused) return;
    this.focused = focused;
    this.restart();
  }

  /** Keys or output: the cursor is shown at once and blinks again BLINK_MS after the last one. */
  poke(): void {
    if (this.enabled && this.focused) this.restart();
  }

  /** True while the cursor is in its hidden half. */
  get hidden(): boolean {
    return this.off;
  }

  dispose(): void {
    this.enabled = false;
    this.restart();
  }

  private restart(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.show(false);
    if (this.enabled && this.focused) this.tick();
  }

  private tick(): void {
    this.timer = this.timers.setTimeout(() => {
      this.show(!this.off);
      this.tick();
    }, BLINK_MS);
  }

  private show(off: boolean): void {
    if (this.off === off) return;
    this.off = off;
    this.setOff(off);
  }
}
