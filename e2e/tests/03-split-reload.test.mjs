// Split right, type in both panes, reload: both panes show their scrollback and run the same shells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, shellPid, layout, treePanes, focusPane,
  shot, codeword, waitFor,
} from '../lib/index.mjs';

test('split right, then reload: same panes, same scrollback, same shells', { timeout: 90000 }, async () => {
  await withReprise('03-split-reload', async ({ page }) => {
    const [left] = await paneIds(page);
    await waitForPrompt(page, left);

    // Ctrl+Shift+D in the focused terminal splits right.
    await focusPane(page, left);
    await page.keyboard.press('Control+Shift+D');
    await waitFor(async () => (await paneIds(page)).length === 2, { message: 'two panes after Ctrl+Shift+D' });
    await waitReady(page);
    const l1 = await layout(page);
    assert.equal(l1.tabs.length, 1);
    assert.equal(l1.tabs[0].root.type, 'split');
    assert.equal(l1.tabs[0].root.direction, 'row', 'split right is a row split');
    const [a, b] = treePanes(l1.tabs[0].root);
    assert.equal(a, left, 'the old pane stays on the left');
    await waitForPrompt(page, b);

    const words = { [a]: codeword('left'), [b]: codeword('right') };
    const pids = {};
    for (const p of [a, b]) {
      await typeInPane(page, p, `echo ${words[p]}\n`);
      await waitForText(page, p, new RegExp(`^${words[p]}$`, 'm'));
      pids[p] = await shellPid(page, p);
    }
    assert.notEqual(pids[a], pids[b], 'two panes, two shells');
    // Each codeword is in its own pane only.
    await waitForText(page, a, (t) => !t.includes(words[b]));
    await shot(page, '03-split-before-reload');

    await page.reload();
    await waitReady(page);
    const l2 = await layout(page);
    assert.deepEqual(l2.tabs.map((t) => treePanes(t.root)), [[a, b]], 'the same two panes after reload');
    assert.equal(l2.tabs[0].root.direction, 'row');
    for (const p of [a, b]) {
      // The scrollback came back with the replay...
      await waitForText(page, p, new RegExp(`^${words[p]}$`, 'm'));
      await waitForText(page, p, `PID-${pids[p]}-`);
      // ...and the shell is the same process.
      assert.equal(await shellPid(page, p), pids[p], `pane ${p} runs the same shell after reload`);
    }
    await shot(page, '03-split-after-reload');
  });
});
