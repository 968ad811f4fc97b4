// One canvas for the page's font measurement instead of one per pane.
//
// xterm.js measures its cell with a 2D context on an OffscreenCanvas(100, 100) of its own, one per
// terminal (CharSizeService, created in open()), kept as long as the terminal. In WebKitGTK on
// Mesa (the real window under Xvfb: llvmpipe is loaded in the web process) each such canvas cost
// ~3.5 MiB of the web process's malloc heap (measured: 1 → 10 panes, the web process's [heap]
// grew 73 MiB with a canvas per terminal, 42 MiB with none; docs/performance.md). The context is
// only asked for font metrics (it sets ctx.font before each measureText), so every terminal can
// use the same one: the measurement, and so the rendering, is the same.

type OffscreenCtor = new (w: number, h: number) => OffscreenCanvas;

const MEASURE_SIZE = 100; // the size xterm.js asks for
let shared: OffscreenCanvas | null = null;
let created = 0;

/** How many measurement canvases this module created (for tests). */
export function measureCanvasesCreated(): number {
  return created;
}

/**
 * Runs open (xterm's Terminal.open) with OffscreenCanvas(100, 100) giving the page's one shared
 * canvas; any other size, and everything after open returns, gets a canvas of its own as usual.
 */
export function withSharedMeasureCanvas<T>(open: () => T): T {
  const g = globalThis as { OffscreenCanvas?: OffscreenCtor };
  const Real = g.OffscreenCanvas;
  if (typeof Real !== 'function') return open(); // xterm measures with a DOM span then
  const Shared = function (this: unknown, w: number, h: number): OffscreenCanvas {
    if (w !== MEASURE_SIZE || h !== MEASURE_SIZE) return new Real(w, h);
    if (!shared) {
      shared = new Real(w, h);
      created++;
    }
    return shared;
  } as unknown as OffscreenCtor;
  Shared.prototype = Real.prototype;
  g.OffscreenCanvas = Shared;
  try {
    return open();
  } finally {
    g.OffscreenCanvas = Real;
  }
}
