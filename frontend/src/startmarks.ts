// The page's own start, phase by phase, for benchmarks (scripts/bench-desktop.sh, e2e/bench/start.mjs):
// when the script ran, the endpoint was known, the socket opened, the hello came, and per pane
// when its terminal was opened, its attach asked and answered, its first replay drawn and its full
// scrollback written. Times are unix ms (performance.timeOrigin + now), so the host-side figures
// and the window's own appearance can be set against them. The report goes to the host once the
// screens are drawn and again once every full replay is in (notification "debug.marks",
// docs/wire.md); the host keeps it for GET /v1/debug/marks. Only the first start of a page is
// recorded: a reconnect's re-attaches are not a start.

export type PanePhase = 'open' | 'opened' | 'attach' | 'attached' | 'parsed' | 'drawn' | 'attachFull' | 'attachedFull' | 'parsedFull' | 'full';

export interface StartReport {
  timeOrigin: number;
  /** The navigation's own timing (ms from timeOrigin), where the browser has it. */
  nav: Record<string, number>;
  /** The page's script bundle: when its download began and ended (ms from timeOrigin). */
  script: { start: number; end: number; bytes: number } | null;
  marks: Record<string, number>;
  panes: string[];
  painted: number | null;
  done: boolean;
}

const MAX_MARKS = 400;

export class StartMarks {
  private readonly marks: Record<string, number> = {};
  private count = 0;
  private expect: string[] | null = null;
  private readonly drawn = new Set<string>();
  private readonly full = new Set<string>();
  private painted: number | null = null;
  private finished = false;
  private readonly send: (r: StartReport) => void;
  private readonly perf: Performance | null;

  constructor(send: (r: StartReport) => void, perf: Performance | null = typeof performance === 'undefined' ? null : performance) {
    this.send = send;
    this.perf = perf;
  }

  private now(): number {
    if (!this.perf) return Date.now();
    return Math.round((this.perf.timeOrigin + this.perf.now()) * 10) / 10;
  }

  /** Records name's first time (later ones are the same phase again and are ignored). */
  mark(name: string): void {
    if (this.finished || name in this.marks || this.count >= MAX_MARKS) return;
    this.marks[name] = this.now();
    this.count++;
  }

  /** The panes of the first layout: the start is theirs. */
  expectPanes(ids: string[]): void {
    if (this.expect === null) this.expect = [...ids];
  }

  pane(paneId: string, phase: PanePhase): void {
    if (this.finished) return;
    this.mark(`${phase}:${paneId}`);
    if (phase === 'drawn') this.drawn.add(paneId);
    if (phase === 'full') {
      this.drawn.add(paneId);
      this.full.add(paneId);
    }
    const ex = this.expect;
    if (!ex) return;
    if (this.painted === null && !this.pendingPaint && ex.every((p) => this.drawn.has(p))) {
      this.pendingPaint = true;
      // The frame after the one that draws the last screen: it is on screen by then.
      const raf = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f: () => void) => setTimeout(f, 16);
      raf(() =>
        raf(() => {
          this.painted = this.now();
          this.resolveDrawn();
          this.send(this.report());
          this.maybeFinish();
        }),
      );
    }
    this.maybeFinish();
  }

  private pendingPaint = false;
  private resolveDrawn!: () => void;
  /** Resolves once every pane of the first layout has its first screen drawn (painted), or after ms of the first call. */
  private readonly drawnP: Promise<void> = new Promise((r) => (this.resolveDrawn = r));
  private drawnTimer = false;

  /** The screens drawn (see drawnP), at most maxMs after the first ask. */
  screensDrawn(maxMs = 3000): Promise<void> {
    if (!this.drawnTimer) {
      this.drawnTimer = true;
      setTimeout(() => this.resolveDrawn(), maxMs);
    }
    return this.drawnP;
  }

  private maybeFinish(): void {
    const ex = this.expect;
    if (this.finished || this.painted === null || !ex || !ex.every((p) => this.full.has(p))) return;
    this.finished = true;
    this.send(this.report());
  }

  report(): StartReport {
    const nav: Record<string, number> = {};
    let script: StartReport['script'] = null;
    const p = this.perf;
    if (p && typeof p.getEntriesByType === 'function') {
      const n = p.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      if (n) {
        for (const k of ['fetchStart', 'responseStart', 'responseEnd', 'domInteractive', 'domContentLoadedEventStart', 'loadEventStart'] as const) {
          if (typeof n[k] === 'number') nav[k] = Math.round(n[k] * 10) / 10;
        }
      }
      const js = (p.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => /\/assets\/index-[^/]*\.js$/.test(r.name));
      if (js) script = { start: Math.round(js.startTime * 10) / 10, end: Math.round(js.responseEnd * 10) / 10, bytes: js.decodedBodySize || 0 };
    }
    return {
      timeOrigin: p ? p.timeOrigin : 0,
      nav,
      script,
      marks: { ...this.marks },
      panes: this.expect ? [...this.expect] : [],
      painted: this.painted,
      done: this.finished,
    };
  }
}
