// Helpers shared by the basics-b tests (issue 17): screenshots at two widths in both schemes,
// and "typing reaches the terminal" after a menu, the palette or a view closes.

import assert from 'node:assert/strict';
import { codeword, paneText, shot, waitFor, waitForText } from '../lib/index.mjs';

export const SIZES = [
  { width: 1600, height: 900 },
  { width: 700, height: 700 },
];
export const SCHEMES = ['dark', 'light'];

/**
 * One screenshot per width and scheme of a state: open() puts the page in it (again after each
 * resize, since a resize closes menus), close() takes it out. Ends at 1600 px, dark.
 */
export async function shots(page, name, open = async () => {}, close = async () => {}) {
  for (const scheme of SCHEMES) {
    for (const size of SIZES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(size);
      await settle(page, size.width);
      await open();
      await shot(page, `${name}-${size.width}-${scheme}`);
      await close();
    }
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize(SIZES[0]);
  await settle(page, SIZES[0].width);
}

/**
 * Waits until the page has the new width and has run its resize handlers (they run before the
 * frame's animation callbacks): a menu opened earlier is closed by that late resize event.
 */
async function settle(page, width) {
  await page.waitForFunction((w) => window.innerWidth === w, width);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/**
 * Asserts the keyboard is in paneId's terminal (without clicking it), then types a codeword line
 * with real key events and waits for the shell to echo it.
 */
export async function assertTypingReaches(page, paneId, what) {
  await waitFor(
    () =>
      page.evaluate((id) => {
        const pane = document.querySelector(`[data-testid=pane][data-pane-id="${id}"]`);
        return !!pane && pane.contains(document.activeElement) && document.activeElement.tagName === 'TEXTAREA';
      }, paneId),
    {
      message: async () =>
        `the keyboard back in pane ${paneId} after ${what} (it is on ${await page.evaluate(() => {
          const a = document.activeElement;
          return a ? `${a.tagName.toLowerCase()}${a.className ? '.' + String(a.className).split(' ').join('.') : ''}${a.dataset?.action ? ` [${a.dataset.action}]` : ''}` : 'nothing';
        })})`,
      timeoutMs: 5000,
    },
  );
  const w = codeword('back');
  await page.keyboard.type(`echo ${w}\n`);
  await waitForText(page, paneId, new RegExp(`^${w}$`, 'm'));
}

export const termOption = (page, paneId, key) => page.evaluate(([id, k]) => {
  const t = window.__reprise.terminal(id);
  const v = t?.options[k];
  return v && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v;
}, [paneId, key]);

export const termSize = (page, paneId) => page.evaluate((id) => {
  const t = window.__reprise.terminal(id);
  return t ? { cols: t.cols, rows: t.rows } : null;
}, paneId);

/** The client point of the middle of cell (col, row) of the visible screen (0-based). */
export async function cellPoint(page, paneId, col, row) {
  return page.evaluate(([id, col, row]) => {
    const pane = document.querySelector(`[data-testid=pane][data-pane-id="${id}"]`);
    const screen = pane.querySelector('.xterm-screen');
    const t = window.__reprise.terminal(id);
    const r = screen.getBoundingClientRect();
    const w = r.width / t.cols;
    const h = r.height / t.rows;
    return { x: r.left + (col + 0.5) * w, y: r.top + (row + 0.5) * h };
  }, [paneId, col, row]);
}

/** The visible row (0-based) and column where text first appears on the last screen line holding it. */
export async function findOnScreen(page, paneId, text) {
  return page.evaluate(([id, text]) => {
    const t = window.__reprise.terminal(id);
    const buf = t.buffer.active;
    for (let y = buf.length - 1; y >= buf.viewportY; y--) {
      const line = buf.getLine(y)?.translateToString(true) ?? '';
      const x = line.indexOf(text);
      if (x >= 0 && y - buf.viewportY < t.rows) return { col: x, row: y - buf.viewportY };
    }
    return null;
  }, [paneId, text]);
}

/** Asserts a box lies inside the window. */
export async function assertInsideWindow(page, selector, what) {
  const r = await page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const b = el.getBoundingClientRect();
    return { left: b.left, top: b.top, right: b.right, bottom: b.bottom, W: window.innerWidth, H: window.innerHeight };
  }, selector);
  assert.ok(r, `${what} is shown`);
  assert.ok(r.left >= 0 && r.top >= 0 && r.right <= r.W && r.bottom <= r.H, `${what} inside the ${r.W}×${r.H} window: ${JSON.stringify(r)}`);
}

export { paneText };
