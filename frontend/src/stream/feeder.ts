// Feeds one xterm.js terminal its output in slices sized to a short parse budget.
//
// xterm.js parses what it is given in one go per write() call and only checks its 12 ms slice
// between calls; the socket worker merges a flood into chunks of up to 256 KiB, which on a busy
// machine is 50–100 ms of parsing in one main-thread task. Nothing else runs meanwhile: not the
// neighbouring pane's echo, not the keydown of a Ctrl+C, not the acknowledgements that keep the
// host sending. So output is handed to xterm here at most one slice at a time (a view, no
// copy), the next slice from the last one's write callback, and once a task has parsed for
// TASK_BUDGET_MS (FLOOD_BUDGET_MS while nobody types or clicks) the rest waits for a task of
// its own. A slice holds about SLICE_MS of this terminal's measured parse rate.
// Acknowledgements follow each slice, so the host refills the window while the rest of a big
// chunk is still being parsed.
//
// Bytes are never reordered or dropped: one queue, in push order, sliced front to back.
//
// It also measures how fast this terminal drains its queue while there is one (drainRate): bytes
// parsed per second of wall time from the moment output is waiting until the queue is empty,
// frames and other panes' slices included. The daemon sizes its window from it (docs/wire.md
// "Flow control"), so that what is in flight is about 10 ms of drawing; time spent idle,
// waiting for bytes the daemon holds back, does not count, so a small window cannot make the
// page look slow (and the window smaller still).

/** The part of xterm's Terminal this uses. */
export interface WriteTarget {
  write(data: Uint8Array, callback: () => void): void;
}

/** Parse time one slice aims at (ms). */
export const SLICE_MS = 2;
/**
 * Parse time after which a task stops feeding and yields to other tasks (ms), while the user is
 * at the keyboard or the mouse (INTERACTIVE_MS since their last input): a key's echo, a
 * neighbour pane's output, a Ctrl+C wait at most this long behind a flood.
 */
export const TASK_BUDGET_MS = 4;
/**
 * The same while nobody has typed or clicked for INTERACTIVE_MS: a flood nobody is typing into
 * parses in longer tasks, with fewer frames drawn in between (under the DOM renderer each frame
 * redraws every row, about a third of the main thread during a `cat`). Under xterm.js's own
 * 12 ms per task, so that its slices still end in our callbacks. Measured in the browser
 * harness: 4 → 12 ms took `cat` from 0.44–0.52 to 0.63–0.72 of bare xterm.js, and the echo in a
 * pane next to `yes` from 16 to 26 ms, hence the switch on input rather than one figure.
 */
export const FLOOD_BUDGET_MS = 10;
/** Since the last key, click or wheel: the page counts as interactive this long (ms). */
export const INTERACTIVE_MS = 500;

let lastInput = -Infinity;

/** The user pressed a key, clicked or scrolled at t (performance.now()): short tasks for a while. */
export function noteUserInput(t: number = performance.now()): void {
  lastInput = t;
}

/** The parse budget of a task at t, the user's last input at last. */
export function budgetAt(t: number, last: number = lastInput): number {
  return t - last < INTERACTIVE_MS ? TASK_BUDGET_MS : FLOOD_BUDGET_MS;
}

/** Chromium's navigator.scheduling.isInputPending: an input event waits for this task to end. */
const inputPending: () => boolean = (() => {
  const sch = (globalThis as { navigator?: { scheduling?: { isInputPending?: () => boolean } } }).navigator?.scheduling;
  if (typeof sch?.isInputPending !== 'function') return () => false;
  return () => sch.isInputPending!();
})();
export const MIN_SLICE = 4 * 1024;
export const MAX_SLICE = 256 * 1024;
/** The first slice size, before a rate has been measured (SLICE_MS at 4 MB/s). */
export const INITIAL_SLICE = 8 * 1024;
/** A drain-rate sample spans at least this much of a busy run (ms), or all of a shorter run. */
export const DRAIN_SPAN_MS = 5;

export interface FeederOptions {
  now?: () => number;
  /** Runs fn in a later task. */
  defer?: (fn: () => void) => void;
  /** Marks the end of the current task (a microtask runs once the task's script is done). */
  endOfTask?: (fn: () => void) => void;
  /** The parse budget of a task starting at t (ms); default budgetAt (the user's last input). */
  budget?: (t: number) => number;
  /** True when an input event waits (default: Chromium's isInputPending, else never). */
  inputPending?: () => boolean;
}

interface Item {
  data: Uint8Array;
  off: number;
  /** Leading bytes not reported to onParsed (a prefix the caller added, like a RIS). */
  uncounted: number;
  /** Written to xterm in one call, never sliced (parsed without a frame drawn in between). */
  whole: boolean;
  onParsed: (n: number) => void;
}

const defaultDefer = (() => {
  // A MessageChannel task: unlike a nested setTimeout, it is never clamped to 4 ms.
  if (typeof MessageChannel === 'undefined') return (fn: () => void) => void setTimeout(fn, 0);
  const ch = new MessageChannel();
  const q: (() => void)[] = [];
  ch.port1.onmessage = () => {
    const fn = q.shift();
    if (fn) fn();
  };
  return (fn: () => void) => {
    q.push(fn);
    ch.port2.postMessage(0);
  };
})();

// One task's parse time is shared by every terminal of the page (they all run on its main thread).
let taskStart: number | null = null;
let taskSeq = 0;

export class WriteFeeder {
  private readonly queue: Item[] = [];
  /** A slice is in xterm (written, its callback not yet run). */
  private busy = false;
  private deferred = false;
  private disposed = false;
  private slice = INITIAL_SLICE;
  /** When the last slice's callback ran, to time the next one parsed in the same task. */
  private lastDone = 0;
  private lastTask = -1;
  /** The busy run being timed for drainRate: since when, and the bytes parsed in it. */
  private spanStart: number | null = null;
  private spanBytes = 0;
  private rate = 0;
  private readonly now: () => number;
  private readonly defer: (fn: () => void) => void;
  private readonly endOfTask: (fn: () => void) => void;
  private readonly budget: (t: number) => number;
  private readonly pending: () => boolean;

  constructor(
    private readonly term: WriteTarget,
    opts: FeederOptions = {},
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.defer = opts.defer ?? defaultDefer;
    this.endOfTask = opts.endOfTask ?? ((fn) => queueMicrotask(fn));
    this.budget = opts.budget ?? ((t) => budgetAt(t));
    this.pending = opts.inputPending ?? inputPending;
  }

  /** Bytes queued here, not yet handed to xterm. */
  get queued(): number {
    let n = 0;
    for (const it of this.queue) n += it.data.byteLength - it.off;
    return n;
  }

  /** The current slice size (bytes). */
  get sliceBytes(): number {
    return this.slice;
  }

  /** Bytes per second this terminal parses while it has output waiting (smoothed); 0: not yet. */
  get drainRate(): number {
    return this.rate;
  }

  /**
   * Queues data for xterm; onParsed(n) runs as each part of it is parsed, with the part's size
   * (the first `uncounted` bytes excluded). whole: hand it to xterm in one write.
   */
  push(data: Uint8Array, onParsed: (n: number) => void, opts: { uncounted?: number; whole?: boolean } = {}): void {
    if (this.disposed || data.byteLength === 0) return;
    if (this.spanStart === null) {
      this.spanStart = this.now();
      this.spanBytes = 0;
    }
    this.queue.push({ data, off: 0, uncounted: opts.uncounted ?? 0, whole: opts.whole ?? false, onParsed });
    // Idle: written at once, in this task (xterm parses a keystroke's echo synchronously).
    if (!this.busy && !this.deferred) this.pump(false);
  }

  /** Drops what is queued (the terminal is going away). */
  dispose(): void {
    this.disposed = true;
    this.queue.length = 0;
  }

  /** When the current task started feeding (the first call in it). */
  private markTask(t: number): number {
    if (taskStart === null) {
      taskStart = t;
      taskSeq++;
      this.endOfTask(() => {
        taskStart = null;
      });
    }
    return taskStart;
  }

  /** inParse: called from xterm's write callback (inside its parse loop). */
  private pump(inParse: boolean): void {
    if (this.disposed || this.busy) return;
    const it = this.queue[0];
    if (!it) return;
    if (inParse) {
      const t = this.now();
      const start = this.markTask(t);
      if (t - start >= this.budget(start) || this.pending()) {
        // This task has parsed enough (or a key waits): the rest in a task of its own, after
        // whatever waits.
        this.deferred = true;
        this.defer(() => {
          this.deferred = false;
          this.pump(false);
        });
        return;
      }
    }
    const len = it.data.byteLength - it.off;
    const n = it.whole ? len : Math.min(len, this.slice);
    const part = it.off === 0 && n === len ? it.data : it.data.subarray(it.off, it.off + n);
    const counted = Math.max(0, n - Math.max(0, it.uncounted - it.off));
    it.off += n;
    if (it.off >= it.data.byteLength) this.queue.shift();
    this.busy = true;
    const wroteIn = inParse ? taskSeq : -1;
    this.term.write(part, () => {
      this.measure(n, wroteIn);
      this.timeDrain(n);
      // Still busy while onParsed runs: a push from it only queues. An exception must not
      // reach xterm: thrown from a write callback, it stops xterm's write queue for good.
      try {
        if (counted > 0) it.onParsed(counted);
      } catch (err) {
        console.error('reprise: output callback failed', err);
      }
      this.busy = false;
      this.pump(true);
    });
  }

  /** Adds n parsed bytes to the busy run; a span long enough, or the run's end, is a sample. */
  private timeDrain(n: number): void {
    if (this.spanStart === null) return;
    this.spanBytes += n;
    const t = this.now();
    const dt = t - this.spanStart;
    const idle = this.queue.length === 0;
    if (dt >= DRAIN_SPAN_MS || (idle && dt > 1 && this.spanBytes >= MIN_SLICE)) {
      const r = (this.spanBytes / dt) * 1000;
      this.rate = this.rate === 0 ? r : 0.7 * this.rate + 0.3 * r;
      this.spanStart = t;
      this.spanBytes = 0;
    }
    if (idle) this.spanStart = null;
  }

  /**
   * Learns the parse rate from two callbacks in one task (the second slice's parse time). A
   * slice written inside xterm's parse loop but parsed in a later task means xterm's own 12 ms
   * ran out first: slices are far too big for the budget, so halve them.
   */
  private measure(n: number, wroteIn: number): void {
    const t = this.now();
    this.markTask(t);
    const task = taskSeq;
    if (wroteIn >= 0 && wroteIn !== task) {
      this.slice = Math.max(MIN_SLICE, Math.round(this.slice / 2));
    } else if (this.lastTask === task && n >= MIN_SLICE) {
      const dt = t - this.lastDone;
      if (dt > 0.05) {
        const want = (n / dt) * SLICE_MS;
        this.slice = Math.round(Math.min(MAX_SLICE, Math.max(MIN_SLICE, 0.7 * this.slice + 0.3 * want)));
      }
    }
    this.lastDone = t;
    this.lastTask = task;
  }
}
