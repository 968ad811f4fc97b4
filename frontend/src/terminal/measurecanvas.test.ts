import { afterEach, describe, expect, it } from 'vitest';
import { measureCanvasesCreated, withSharedMeasureCanvas } from './measurecanvas';

let made = 0;
class FakeOffscreen {
  constructor(
    public width: number,
    public height: number,
  ) {
    made++;
  }
}
const g = globalThis as { OffscreenCanvas?: unknown };
const before = g.OffscreenCanvas;
afterEach(() => {
  g.OffscreenCanvas = before;
});

describe('withSharedMeasureCanvas', () => {
  it('gives every terminal open the same 100x100 measurement canvas', () => {
    g.OffscreenCanvas = FakeOffscreen;
    made = 0;
    const n0 = measureCanvasesCreated();
    // What xterm.js's CharSizeService does in open(), once per terminal.
    const a = withSharedMeasureCanvas(() => new (g.OffscreenCanvas as typeof FakeOffscreen)(100, 100));
    const b = withSharedMeasureCanvas(() => new (g.OffscreenCanvas as typeof FakeOffscreen)(100, 100));
    expect(a).toBe(b);
    expect(a).toBeInstanceOf(FakeOffscreen);
    expect(made).toBe(1);
    expect(measureCanvasesCreated() - n0).toBe(1);
    expect(g.OffscreenCanvas).toBe(FakeOffscreen); // restored after open
  });

  it('leaves other sizes and canvases made after open alone', () => {
    g.OffscreenCanvas = FakeOffscreen;
    made = 0;
    const other = withSharedMeasureCanvas(() => new (g.OffscreenCanvas as typeof FakeOffscreen)(300, 150));
    expect(other.width).toBe(300);
    expect(made).toBe(1);
    const later = new FakeOffscreen(100, 100);
    expect(later).not.toBe(withSharedMeasureCanvas(() => new (g.OffscreenCanvas as typeof FakeOffscreen)(100, 100)));
  });

  it('restores OffscreenCanvas when open throws, and runs open without one', () => {
    g.OffscreenCanvas = FakeOffscreen;
    expect(() =>
      withSharedMeasureCanvas(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(g.OffscreenCanvas).toBe(FakeOffscreen);
    g.OffscreenCanvas = undefined;
    expect(withSharedMeasureCanvas(() => 7)).toBe(7);
  });
});
