// Restart `reprise serve` on the same home: the layout comes back and the shells are the same
// processes (the daemon kept them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, shellPid, layout, layoutShape, treePanes,
  shot, codeword, waitFor, daemonPid, alive, paneSel, hostJson,
} from '../lib/index.mjs';

async function activate(page, tabId) {
  await page.click(`[data-testid=tab][data-tab-id="${tabId}"]`);
  await waitFor(async () => (await layout(page)).activeTabId === tabId, { message: `tab ${tabId} active` });
}

test('restart serve: same tabs, panes, split direction and shells', { timeout: 120000 }, async (t) => {
  await withReprise('05-serve-restart', async (ctx) => {
    let { page } = ctx;
    const [first] = await paneIds(page);
    await waitForPrompt(page, first);
    // Tab 1: split down (column); tab 2: one pane.
    await page.click(`${paneSel(first)} [data-testid=split-down]`);
    await waitFor(async () => (await paneIds(page)).length === 2, { message: 'two panes after split down' });
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'a second tab' });
    await waitReady(page);
    const before = await layout(page);
    assert.equal(before.tabs[0].root.direction, 'column');

    const pids = {};
    const words = {};
    for (const tab of before.tabs) {
      await activate(page, tab.id);
      for (const p of treePanes(tab.root)) {
        await waitForPrompt(page, p);
        words[p] = codeword('keep');
        await typeInPane(page, p, `echo ${words[p]}\n`);
        await waitForText(page, p, new RegExp(`^${words[p]}$`, 'm'));
        pids[p] = await shellPid(page, p);
      }
    }
    assert.equal(new Set(Object.values(pids)).size, 3, 'three shells');
    await activate(page, before.tabs[0].id);
    const expected = await layout(page);
    await shot(page, '05-serve-restart-before');
    await page.close();

    const daemon = daemonPid(ctx.home);
    const oldToken = ctx.server.token;
    const server = await ctx.restartServe();
    assert.equal(daemonPid(ctx.home), daemon, 'the same daemon');
    assert.ok(alive(daemon), 'the daemon survived the restart of serve');
    assert.equal(hostJson(ctx.home)?.url, server.url, 'host.json names the new URL');
    assert.notEqual(server.token, oldToken, 'a new token every launch (docs/security.md)');

    page = await ctx.newPage(server.url);
    const after = await layout(page);
    assert.deepEqual(layoutShape(after), layoutShape(expected), 'same tabs, same splits, same active tab');
    assert.deepEqual(after.tabs.map((x) => treePanes(x.root)), expected.tabs.map((x) => treePanes(x.root)), 'same pane ids');
    assert.equal(after.tabs[0].root.direction, 'column', 'still split down');

    for (const tab of after.tabs) {
      await activate(page, tab.id);
      for (const p of treePanes(tab.root)) {
        await waitForText(page, p, new RegExp(`^${words[p]}$`, 'm'));
        assert.equal(await shellPid(page, p), pids[p], `pane ${p}: the same shell`);
      }
    }
    await activate(page, after.tabs[0].id);
    await shot(page, '05-serve-restart-after');
  });
});
