// Many panes: a pane on another tab gives its WebGL context back (Chromium keeps at most 16 per
// page) and falls back to xterm's DOM renderer, which draws nothing while hidden; the output it
// gets meanwhile is all in its buffer when the tab is shown again, on WebGL again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, layout, treePanes, codeword, waitFor, paneSel } from '../lib/index.mjs';

const rendererOf = (page, paneId) =>
  page.evaluate((id) => (Object.values(window.__reprise.stats()).find((s) => s.paneId === id) || {}).renderer || null, paneId);

test('hidden panes: WebGL released while hidden, output kept, WebGL again when shown', { timeout: 120000 }, async () => {
  await withReprise('hidden-panes', async ({ server, newPage }) => {
    // WebGL forced: headless Chromium has it only on its software rasterizer, which the app
    // would not pick on its own.
    const u = new URL(server.url);
    u.searchParams.set('renderer', 'webgl');
    const page = await newPage(u.href);
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    await waitFor(async () => (await rendererOf(page, p1)) === 'webgl', { message: 'the visible pane on WebGL' });

    // Output that arrives only once the pane is hidden.
    const w = codeword('hid');
    await typeInPane(page, p1, `sleep 1.5; for i in $(seq 1 3000); do echo ${w}-$i; done\n`);
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'a second tab' });
    await waitReady(page);
    const l = await layout(page);
    const [p2] = treePanes(l.tabs[1].root);
    await waitFor(async () => !(await page.isVisible(`${paneSel(p1)} .xterm-screen`)), { message: 'tab 1 hidden' });
    await waitFor(async () => (await rendererOf(page, p1)) === 'dom', { message: 'the hidden pane to give its WebGL context back' });
    await waitFor(async () => (await rendererOf(page, p2)) === 'webgl', { message: 'the new tab’s pane on WebGL' });

    // Written while hidden: every line is in the buffer.
    const text = await waitForText(page, p1, `${w}-3000`, { timeoutMs: 30000 });
    await waitForPrompt(page, p1);
    assert.equal(await rendererOf(page, p1), 'dom', 'still hidden, still without WebGL');
    const lines = text.split('\n').filter((x) => x.startsWith(`${w}-`));
    assert.equal(lines.length, 3000, 'all 3000 lines written while hidden are in the buffer');
    assert.equal(lines[0], `${w}-1`);

    // Shown again: WebGL again, the same output.
    await page.click(`[data-testid=tab][data-tab-id="${l.tabs[0].id}"]`);
    await waitFor(async () => page.isVisible(`${paneSel(p1)} .xterm-screen`), { message: 'tab 1 shown' });
    await waitFor(async () => (await rendererOf(page, p1)) === 'webgl', { message: 'the shown pane back on WebGL' });
    await waitFor(async () => (await rendererOf(page, p2)) === 'dom', { message: 'the now hidden pane without WebGL' });
    const again = await waitForText(page, p1, `${w}-3000`);
    assert.equal(again.split('\n').filter((x) => x.startsWith(`${w}-`)).length, 3000);
  });
});
