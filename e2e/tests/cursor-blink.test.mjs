// The cursor blink costs no echo latency: no CSS animation runs in the page (xterm.js's DOM
// renderer blinks with an infinite one, and while any runs Chromium renders a frame after every
// key before the echo is drawn). Off by default; Settings → Appearance's cursor blink on makes
// the cursor blink by a class toggled on the terminal's element, still with no animation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, waitForPrompt, focusPane, waitReady, waitFor, paneSel } from '../lib/index.mjs';

const animations = (page) => page.evaluate(() => document.getAnimations().map((a) => a.animationName || String(a.id) || 'animation'));

test('cursor blink: off by default, on by the setting, never a CSS animation', { timeout: 90000 }, async () => {
  await withReprise('cursor-blink', async ({ page }) => {
    const [p] = await paneIds(page);
    await waitForPrompt(page, p);
    await focusPane(page, p);
    await waitFor(() => page.evaluate((sel) => !!document.querySelector(`${sel} .xterm-rows.xterm-focus .xterm-cursor`), paneSel(p)), { message: 'the focused cursor drawn' });
    assert.deepEqual(await animations(page), [], 'no animation with the default settings');
    // Settings → Appearance keeps it in the page's localStorage (frontend/src/terminal/appearance.ts).
    assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('reprise.appearance') || '{}').cursorBlink), undefined);
    await page.evaluate(() => localStorage.setItem('reprise.appearance', JSON.stringify({ cursorBlink: true })));
    await page.reload();
    await waitReady(page);
    await waitForPrompt(page, p);
    await focusPane(page, p);
    // The cursor goes off and on again while focused and idle.
    const seen = await page.evaluate(
      (sel) =>
        new Promise((res) => {
          const el = document.querySelector(`${sel} .terminal-view`);
          const states = new Set();
          const t0 = performance.now();
          const tick = () => {
            states.add(el.classList.contains('cursor-blink-off'));
            if (states.size === 2 || performance.now() - t0 > 5000) res([...states]);
            else setTimeout(tick, 50);
          };
          tick();
        }),
      paneSel(p),
    );
    assert.equal(seen.length, 2, `the cursor blinks (states seen: ${JSON.stringify(seen)})`);
    assert.deepEqual(await animations(page), [], 'no animation while the cursor blinks');
  });
});
