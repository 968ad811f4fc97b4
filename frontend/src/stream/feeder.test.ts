import { describe, expect, it } from 'vitest';
import { budgetAt, FLOOD_BUDGET_MS, INTERACTIVE_MS, MAX_SLICE, MIN_SLICE, TASK_BUDGET_MS, WriteFeeder, type WriteTarget } from './feeder';

/**
 * A page's main thread in miniature: a task queue, a clock, the microtasks that run at the end
 * of each task, and terminals that behave like xterm.js's WriteBuffer (a write to an empty
 * buffer is parsed in a later task; a task parses queued chunks, each in one go, until 12 ms
 * have passed, and calls each chunk's callback after it).
 */
class Page {
  now = 0;
  tasks: (() => void)[] = [];
  micro: (() => void)[] = [];
  /** How long each task ran (ms). */
  taskMs: number[] = [];

  run(limit = 100000): void {
    for (let i = 0; i < limit && this.tasks.length; i++) {
      const t = this.tasks.shift()!;
      const t0 = this.now;
      t();
      while (this.micro.length) this.micro.shift()!();
      this.taskMs.push(this.now - t0);
    }
  }

  /** The user's last key or click (the page's clock); the tests below type just before. */
  lastInput = 0;
  inputWaits = false;

  opts() {
    return {
      now: () => this.now,
      defer: (fn: () => void) => void this.tasks.push(fn),
      endOfTask: (fn: () => void) => void this.micro.push(fn),
      budget: (t: number) => budgetAt(t, this.lastInput),
      inputPending: () => this.inputWaits,
    };
  }
}

class FakeXterm implements WriteTarget {
  buf: { data: Uint8Array; cb: () => void }[] = [];
  parsed: number[] = [];
  chunkSizes: number[] = [];
  maxQueued = 0;
  constructor(
    private readonly page: Page,
    /** Parse rate, bytes per ms. */
    private readonly rate: number,
  ) {}

  write(data: Uint8Array, cb: () => void): void {
    if (this.buf.length === 0) this.page.tasks.push(() => this.inner());
    this.buf.push({ data, cb });
    this.maxQueued = Math.max(this.maxQueued, this.buf.length);
  }

  private inner(): void {
    const start = this.page.now;
    while (this.buf.length) {
      const { data, cb } = this.buf[0]!;
      this.page.now += data.byteLength / this.rate;
      for (const b of data) this.parsed.push(b);
      this.chunkSizes.push(data.byteLength);
      cb();
      this.buf.shift();
      if (this.page.now - start >= 12) break;
    }
    if (this.buf.length) this.page.tasks.push(() => this.inner());
  }
}

const bytes = (n: number, seed = 0): Uint8Array => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + seed) & 0xff;
  return b;
};

describe('WriteFeeder', () => {
  it('hands xterm every byte once, in order, with the parsed counts adding up', () => {
    const page = new Page();
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    const chunks = [bytes(300 * 1024, 1), bytes(10, 2), bytes(70 * 1024, 3), bytes(1, 4)];
    let counted = 0;
    for (const c of chunks) f.push(c, (n) => (counted += n));
    page.run();
    const all = chunks.flatMap((c) => [...c]);
    expect(x.parsed.length).toBe(all.length);
    expect(x.parsed).toEqual(all);
    expect(counted).toBe(all.length);
    expect(f.queued).toBe(0);
  });

  it('keeps at most one slice in xterm, and no task parses much past its budget', () => {
    // A flood chunk of 256 KiB at 4 MB/s (what xterm.js draws `yes` at on a busy machine): written
    // whole, it is one 64 ms task; fed, no task passes the budget by more than a slice.
    const direct = new Page();
    const dx = new FakeXterm(direct, 4000);
    dx.write(bytes(256 * 1024), () => {});
    direct.run();
    expect(Math.max(...direct.taskMs)).toBeGreaterThan(60);

    const page = new Page();
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    f.push(bytes(256 * 1024), () => {});
    f.push(bytes(256 * 1024), () => {});
    page.run();
    // The slice being parsed and, from its callback, the next one (xterm calls back before it
    // lets go of a chunk).
    expect(x.maxQueued).toBeLessThanOrEqual(2);
    expect(x.parsed.length).toBe(512 * 1024);
    const worst = Math.max(...page.taskMs);
    expect(worst).toBeLessThanOrEqual(TASK_BUDGET_MS + 2 * (16 * 1024) / 4000 + 0.01);
    expect(page.taskMs.length).toBeGreaterThan(10);
  });

  it('parses in longer tasks while nobody types, and short ones again at the next key', () => {
    const page = new Page();
    page.lastInput = -Infinity;
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    for (let i = 0; i < 4; i++) f.push(bytes(256 * 1024), () => {});
    page.run(20);
    const unattended = Math.max(...page.taskMs);
    expect(unattended).toBeGreaterThanOrEqual(FLOOD_BUDGET_MS);
    expect(unattended).toBeLessThanOrEqual(FLOOD_BUDGET_MS + 2 * (16 * 1024) / 4000 + 0.01);
    // A key: from the next task on, the short budget.
    page.lastInput = page.now;
    page.taskMs = [];
    page.run(20);
    expect(Math.max(...page.taskMs)).toBeLessThan(FLOOD_BUDGET_MS - 2);
    // Long after it: long tasks again.
    page.now += INTERACTIVE_MS;
    page.taskMs = [];
    page.run(20);
    expect(Math.max(...page.taskMs)).toBeGreaterThanOrEqual(FLOOD_BUDGET_MS);
    page.run();
    expect(x.parsed.length).toBe(1024 * 1024);
  });

  it('ends a task at once when an input event waits for it', () => {
    const page = new Page();
    page.lastInput = -Infinity;
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    f.push(bytes(1024 * 1024), () => {});
    page.run(2);
    page.inputWaits = true;
    page.taskMs = [];
    page.run(10);
    // One slice per task (a slice of 8–16 KiB at 4 MB/s is 2–4 ms), not FLOOD_BUDGET_MS of them.
    expect(Math.max(...page.taskMs)).toBeLessThanOrEqual(2 * (16 * 1024) / 4000 + 0.01);
    page.inputWaits = false;
    page.run();
    expect(x.parsed.length).toBe(1024 * 1024);
  });

  it('sizes slices to the measured parse rate', () => {
    const fast = new Page();
    const fx = new FakeXterm(fast, 40000); // 40 MB/s
    const ff = new WriteFeeder(fx, fast.opts());
    const slow = new Page();
    const sx = new FakeXterm(slow, 1000); // 1 MB/s
    const sf = new WriteFeeder(sx, slow.opts());
    for (let i = 0; i < 8; i++) {
      ff.push(bytes(512 * 1024), () => {});
      sf.push(bytes(64 * 1024), () => {});
    }
    fast.run();
    slow.run();
    expect(ff.sliceBytes).toBeGreaterThan(40 * 1024);
    expect(ff.sliceBytes).toBeLessThanOrEqual(MAX_SLICE);
    expect(sf.sliceBytes).toBeLessThan(8 * 1024);
    expect(sf.sliceBytes).toBeGreaterThanOrEqual(MIN_SLICE);
  });

  it('lets another terminal write between the slices of a flood', () => {
    const page = new Page();
    const flood = new FakeXterm(page, 4000);
    const ff = new WriteFeeder(flood, page.opts());
    const echo = new FakeXterm(page, 4000);
    const ef = new WriteFeeder(echo, page.opts());
    ff.push(bytes(1024 * 1024), () => {});
    // The flood's first task runs, then an echo arrives (a message task) for the other pane.
    page.run(2);
    let echoedAt = -1;
    const sentAt = page.now;
    page.tasks.push(() => ef.push(bytes(1), () => (echoedAt = page.now)));
    page.run();
    expect(echoedAt).toBeGreaterThanOrEqual(0);
    // The echo waited for at most one budget's worth of flood parsing, not the whole megabyte.
    expect(echoedAt - sentAt).toBeLessThan(3 * TASK_BUDGET_MS + 10);
    expect(flood.parsed.length).toBe(1024 * 1024);
  });

  it('writes a whole item in one call and leaves its uncounted prefix out of the counts', () => {
    const page = new Page();
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    let counted = 0;
    f.push(bytes(100 * 1024), (n) => (counted += n));
    f.push(bytes(200 * 1024), (n) => (counted += n), { whole: true, uncounted: 2 });
    f.push(bytes(5), (n) => (counted += n));
    page.run();
    expect(x.chunkSizes).toContain(200 * 1024);
    expect(counted).toBe(100 * 1024 + 200 * 1024 - 2 + 5);
  });

  it('counts an uncounted prefix that spans slices once', () => {
    const page = new Page();
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    let counted = 0;
    f.push(bytes(40 * 1024), (n) => (counted += n), { uncounted: 20 * 1024 });
    page.run();
    expect(x.chunkSizes.length).toBeGreaterThan(1);
    expect(counted).toBe(20 * 1024);
  });

  it('runs on the real clock, microtasks and message tasks (no options)', async () => {
    // An xterm that parses each write in a timer of its own, calling back from there.
    const parsed: number[] = [];
    const x: WriteTarget = {
      write: (data, cb) =>
        void setTimeout(() => {
          for (const b of data) parsed.push(b);
          cb();
        }, 0),
    };
    const f = new WriteFeeder(x);
    let counted = 0;
    const data = bytes(64 * 1024, 9);
    f.push(data, (n) => (counted += n));
    f.push(bytes(3, 1), (n) => (counted += n));
    for (let i = 0; i < 200 && counted < data.length + 3; i++) await new Promise((r) => setTimeout(r, 1));
    expect(counted).toBe(data.length + 3);
    expect(parsed.slice(0, data.length)).toEqual([...data]);
  });

  it('goes on feeding when a parsed callback throws', () => {
    const page = new Page();
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    let calls = 0;
    f.push(bytes(40 * 1024), () => {
      calls++;
      if (calls === 1) throw new Error('boom');
    });
    f.push(bytes(10), () => {});
    const err = console.error;
    console.error = () => {};
    try {
      page.run();
    } finally {
      console.error = err;
    }
    expect(calls).toBeGreaterThan(1);
    expect(x.parsed.length).toBe(40 * 1024 + 10);
  });

  it('measures the drain rate while output waits, not the idle time between bursts', () => {
    const page = new Page();
    const x = new FakeXterm(page, 2000); // 2 MB/s
    const f = new WriteFeeder(x, page.opts());
    expect(f.drainRate).toBe(0);
    // Bursts of 8 KiB with 50 ms of nothing in between (the daemon holding the next bytes back
    // over a window too small for the round trip): idle time is not drawing time.
    for (let i = 0; i < 20; i++) {
      f.push(bytes(8 * 1024, i), () => {});
      page.run();
      page.now += 50;
    }
    expect(f.drainRate).toBeGreaterThan(1.6e6);
    expect(f.drainRate).toBeLessThan(2.4e6);
    // A slower terminal (more escape sequences, less CPU): the rate follows.
    const y = new FakeXterm(page, 500);
    const g = new WriteFeeder(y, page.opts());
    g.push(bytes(256 * 1024), () => {});
    page.run();
    expect(g.drainRate).toBeGreaterThan(0.4e6);
    expect(g.drainRate).toBeLessThan(0.6e6);
  });

  it('writes nothing more once disposed', () => {
    const page = new Page();
    const x = new FakeXterm(page, 4000);
    const f = new WriteFeeder(x, page.opts());
    f.push(bytes(200 * 1024), () => {});
    page.run(1);
    f.dispose();
    page.run();
    f.push(bytes(10), () => {});
    page.run();
    expect(x.parsed.length).toBeLessThan(200 * 1024);
  });
});
