// Defects found walking through the UI as a user would (explore-ui), each with the test that
// caught it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, waitForPrompt, focusPane, typeInPane, waitFor, shot, layout } from '../lib/index.mjs';
import { assertTypingReaches } from './basics-b-lib.mjs';

const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a ? `${a.tagName.toLowerCase()}${a.dataset?.testid ? `[${a.dataset.testid}]` : ''}` : 'nothing';
  });

// The palette's field lies inside the palette (it overflowed its right edge by its margins).
test('command palette: the field fits inside the palette at 1280 and 700 px', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-palette-fit', async ({ page }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    for (const width of [1280, 700]) {
      await page.setViewportSize({ width, height: 760 });
      await focusPane(page, p1);
      await page.keyboard.press('Control+Shift+P');
      await page.waitForSelector('[data-testid=palette]');
      const box = await page.evaluate(() => {
        const r = (s) => document.querySelector(s).getBoundingClientRect();
        const p = r('[data-testid=palette]');
        const i = r('[data-testid=palette-input]');
        return { palette: [p.left, p.right], input: [i.left, i.right] };
      });
      assert.ok(box.input[0] >= box.palette[0] && box.input[1] <= box.palette[1], `at ${width} px the field lies inside the palette: ${JSON.stringify(box)}`);
      await shot(page, `ui-walk-palette-${width}`);
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await page.isVisible('[data-testid=palette]')), { message: 'Esc closed the palette' });
    }
  });
});
