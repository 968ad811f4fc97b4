import { describe, expect, it } from 'vitest';
import type { Terminal as XTerm } from '@xterm/xterm';
import { shareWidths, widthMeasurements } from './widths';

/** The part of xterm.js's DOM renderer WidthCache that widths.ts patches. */
class FakeWidthCache {
  calls: string[] = [];
  constructor(
    public _font: string,
    public _fontSize: number,
    public _weight = 'normal',
    public _weightBold = 'bold',
  ) {}
  _measure(c: string, variant: number): number {
    this.calls.push(`${variant}:${c}`);
    return c === 'hidden' ? 0 : 8 + variant;
  }
}
const termWith = (wc: FakeWidthCache | null) => ({ _core: { _renderService: { _renderer: { value: wc ? { _widthCache: wc } : {} } } } }) as unknown as XTerm;

describe('shareWidths', () => {
  it('a second terminal with the same font measures nothing the first measured', () => {
    const a = new FakeWidthCache('monospace', 14);
    const b = new FakeWidthCache('monospace', 14);
    expect(shareWidths(termWith(a))).toBe(true);
    expect(shareWidths(termWith(b))).toBe(true);
    const n0 = widthMeasurements();
    expect(a._measure('x', 0)).toBe(8);
    expect(a._measure('x', 1)).toBe(9);
    expect(b._measure('x', 0)).toBe(8);
    expect(b._measure('x', 1)).toBe(9);
    expect(a.calls).toEqual(['0:x', '1:x']);
    expect(b.calls).toEqual([]);
    expect(widthMeasurements() - n0).toBe(2);
  });

  it('another font or size is measured again; a zero width (not laid out) is not kept', () => {
    const a = new FakeWidthCache('monospace', 14);
    const c = new FakeWidthCache('monospace', 16);
    shareWidths(termWith(a));
    shareWidths(termWith(c));
    a._measure('y', 0);
    c._measure('y', 0);
    expect(c.calls).toEqual(['0:y']);
    a._measure('hidden', 0);
    a._measure('hidden', 0);
    expect(a.calls.filter((x) => x === '0:hidden')).toHaveLength(2);
  });

  it('a terminal without a DOM renderer (WebGL) is left alone', () => {
    expect(shareWidths(termWith(null))).toBe(false);
  });
});
