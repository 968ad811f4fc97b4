// Keys the page receives while no terminal has the keyboard: while the page
// is still loading (public/early-keys.js records them from the first moment
// the document runs a script), before the first pane's xterm exists, and
// whenever the focus is on the page itself rather than in a terminal. They go
// to the focused pane, in order, as soon as its terminal is open (which then
// holds them until it is attached: stream/hold.ts).
//
// Keys typed before the document could listen never reach the page. So that
// the part of a line that did arrive is not run as a command of its own (the
// reported `echo ok>notes.txt` that arrived as `>notes.txt` and emptied the
// file), the first line is refused, visibly, when typing was already under way
// as the page began to listen: its first key came within GRACE_MS of that.

import { shortcutFor, type KeyLike } from '../keys';

/** A key event as public/early-keys.js records it. */
export interface RecordedKey extends KeyLike {
  /** performance.now() of the event. */
  t: number;
}

/** What public/early-keys.js leaves on window. */
export interface EarlyRecorder {
  /** performance.now() when it began to listen. */
  start: number;
  /** performance.now() of the first press of a mouse button or a touch since then (null: none yet). */
  pointer?: number | null;
  /** Stops listening and returns what it recorded. */
  stop(): RecordedKey[];
}

/** A first key this soon after the page began to listen means typing began before it could. */
export const GRACE_MS = 200;

/**
 * The bytes a terminal would send for a key, or null for keys that are not
 * typing (shortcuts, modifiers alone, function keys). Matches xterm.js in
 * normal cursor mode for the keys it covers.
 */
export function keyBytes(ev: KeyLike): string | null {
  if (ev.metaKey || shortcutFor(ev)) return null;
  const k = ev.key;
  if (ev.ctrlKey && !ev.altKey) {
    if (k.length === 1) {
      const c = k.toLowerCase().charCodeAt(0);
      if (c >= 0x61 && c <= 0x7a) return String.fromCharCode(c - 0x60);
      if (k === '[') return '\x1b';
      if (k === '\\') return '\x1c';
      if (k === ']') return '\x1d';
      if (k === ' ' || k === '@') return '\x00';
    }
    return null;
  }
  if (ev.altKey) return null;
  if (k.length === 1 || (k.length === 2 && /^[\uD800-\uDBFF]/.test(k))) return k;
  switch (k) {
    case 'Enter':
      return '\r';
    case 'Backspace':
      return '\x7f';
    case 'Tab':
      return ev.shiftKey ? '\x1b[Z' : '\t';
    case 'Escape':
      return '\x1b';
    case 'ArrowUp':
      return '\x1b[A';
    case 'ArrowDown':
      return '\x1b[B';
    case 'ArrowRight':
      return '\x1b[C';
    case 'ArrowLeft':
      return '\x1b[D';
    case 'Home':
      return '\x1b[H';
    case 'End':
      return '\x1b[F';
    case 'Delete':
      return '\x1b[3~';
    default:
      return null;
  }
}

/** True when a key event at target is typing meant for a terminal (not for a field, a button, a dialog). */
export function isPageLevel(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).tagName !== 'string') return true;
  const el = target as HTMLElement;
  if (el.tagName === 'BODY' || el.tagName === 'HTML') return true;
  return false;
}

export interface KeyCatcherOptions {
  /** When the page began to listen (performance.now()). */
  start: number;
  /** Types data into the focused pane; false when no pane can take it yet (it is kept). */
  deliver: (data: string) => boolean;
  /** Says that a line typed while the window opened was not sent (shown in the focused pane). */
  refuse: (text: string) => void;
  graceMs?: number;
}

/** Orders page-level keys, applies the first-line rule, hands them to a pane. */
export class KeyCatcher {
  private pending = '';
  private first = true;
  /** The first line is being refused (until its Enter). */
  private cutting = false;
  private cut = '';
  /** When the user first pressed a pointer since the page began to listen (null: not yet). */
  private pointerAt: number | null = null;

  constructor(private readonly opts: KeyCatcherOptions) {}

  /**
   * The user pressed a mouse button or touched the page at t. Typing that
   * follows a click made after the page listened began after it: a person
   * does not click into a pane in the middle of a word, so the first line is
   * not refused even when it comes within the grace time (a reload, then a
   * click into the pane and a quick command, had its line refused).
   */
  pointer(t: number): void {
    if (this.pointerAt === null || t < this.pointerAt) this.pointerAt = t;
  }

  /** One key event; returns true when it was taken as typing (the caller prevents its default). */
  feed(ev: RecordedKey): boolean {
    const data = keyBytes(ev);
    if (data === null) return false;
    const rest = this.through(data, ev.t);
    if (rest) this.queue(rest);
    return true;
  }

  /**
   * What of data (typed at time t, here or in a terminal) may go to a shell:
   * all of it, unless the first line is being refused (then what follows its
   * end). Terminals pass their typing through this too, so the rest of a
   * refused line typed once a terminal had the keyboard is refused with it.
   */
  through(data: string, t: number): string {
    if (this.first) {
      this.first = false;
      // A key made before the page listened (queued while it loaded) counts too.
      const clickedFirst = this.pointerAt !== null && this.pointerAt <= t;
      this.cutting = !clickedFirst && t - this.opts.start < (this.opts.graceMs ?? GRACE_MS);
    }
    if (!this.cutting) return data;
    // Enter, Ctrl+C or Ctrl+D ends the line being cut.
    // eslint-disable-next-line no-control-regex
    const end = data.search(/[\r\x03\x04]/);
    if (end < 0) {
      this.cut += data;
      return '';
    }
    this.cut += data.slice(0, end + 1);
    this.cutting = false;
    this.opts.refuse(printable(this.cut));
    this.cut = '';
    return data.slice(end + 1);
  }

  /** Tries again to hand kept keys to a pane (a terminal has just opened). */
  flush(): void {
    if (this.pending && this.opts.deliver(this.pending)) this.pending = '';
  }

  /** Keys kept because no pane could take them yet. */
  get kept(): string {
    return this.pending;
  }

  private queue(data: string): void {
    this.pending += data;
    this.flush();
  }
}

/** The refused line as the user typed it (control keys shown as ^X, Enter dropped). */
export function printable(s: string): string {
  let out = '';
  for (const ch of s.replace(/\r$/, '')) {
    const c = ch.charCodeAt(0);
    if (ch === '\x7f') out = out.slice(0, -1);
    else if (c < 0x20) out += '^' + String.fromCharCode(c + 0x40);
    else out += ch;
  }
  return out;
}
