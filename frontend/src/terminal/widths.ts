// One table of glyph widths for the page instead of one per pane.
//
// xterm.js's DOM renderer measures every character it draws the first time it sees it (its
// WidthCache: a span's offsetWidth, a forced layout each time), per terminal. A start with
// restored panes draws the same characters in every pane, so each pane forced the same
// layouts again: in a profile of a 4-pane start in Chromium those measurements were ~10 % of the
// main thread's time until the screens were drawn, and they grow with the panes. Here the
// measurement is shared by every terminal with the same font, size, weights and device pixel
// ratio (the width depends on nothing else). It reaches into xterm's private renderer (no API
// for it): a version without it keeps measuring per pane.

import type { Terminal as XTerm } from '@xterm/xterm';

interface WidthCacheLike {
  _font?: string;
  _fontSize?: number;
  _weight?: unknown;
  _weightBold?: unknown;
  _measure?: (c: string, variant: number) => number;
}

/** At most this many widths are kept (a screen of CJK or emoji adds a few hundred). */
const MAX_ENTRIES = 50000;
const shared = new Map<string, number>();
let patched: object | null = null;
let measured = 0;

/** How many measurements reached the DOM (for tests). */
export function widthMeasurements(): number {
  return measured;
}

function widthCacheOf(t: XTerm): WidthCacheLike | null {
  const core = (t as unknown as { _core?: { _renderService?: { _renderer?: { value?: { _widthCache?: WidthCacheLike } } } } })._core;
  return core?._renderService?._renderer?.value?._widthCache ?? null;
}

/** Makes t's DOM renderer (if that is what it has now) use the page's shared widths. */
export function shareWidths(t: XTerm): boolean {
  const wc = widthCacheOf(t);
  if (!wc || typeof wc._measure !== 'function') return false;
  const proto = Object.getPrototypeOf(wc) as WidthCacheLike;
  if (patched === proto) return true;
  const own = proto._measure;
  if (typeof own !== 'function') return false;
  proto._measure = function (this: WidthCacheLike, c: string, variant: number): number {
    const key = `${globalThis.devicePixelRatio ?? 1}|${this._font}|${this._fontSize}|${String(this._weight)}|${String(this._weightBold)}|${variant}|${c}`;
    const known = shared.get(key);
    if (known !== undefined) return known;
    measured++;
    const w = own.call(this, c, variant);
    // 0: the element is not laid out (hidden); measured again next time, as xterm does.
    if (w > 0) {
      if (shared.size >= MAX_ENTRIES) shared.clear();
      shared.set(key, w);
    }
    return w;
  };
  patched = proto;
  // A font that finishes loading later changes widths: measure again.
  globalThis.document?.fonts?.addEventListener?.('loadingdone', () => shared.clear());
  return true;
}
