// kill -9 the pty daemon: every pane comes back with its old output, the divider, and a fresh shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, shellPid, layout, treePanes,
  shot, codeword, waitFor, killDaemon, daemonPid, alive, paneSel,
} from '../lib/index.mjs';

const DIVIDER = 'output above is from before this terminal ended';
const DIVIDER_LINE = /^── output above is from before this terminal ended at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.$/m;

test('kill -9 the daemon: restored contents, the divider, a fresh shell', { timeout: 90000 }, async (t) => {
  await withReprise('04-daemon-killed', async ({ page, home }) => {
    const [first] = await paneIds(page);
    await waitForPrompt(page, first);
    await page.click(`${paneSel(first)} [data-testid=split-down]`);
    await waitFor(async () => (await paneIds(page)).length === 2, { message: 'two panes after split down' });
    await waitReady(page);
    const panes = treePanes((await layout(page)).tabs[0].root);

    const words = {};
    const pids = {};
    for (const p of panes) {
      await waitForPrompt(page, p);
      words[p] = codeword('before');
      await typeInPane(page, p, `echo ${words[p]}\n`);
      await waitForText(page, p, new RegExp(`^${words[p]}$`, 'm'));
      pids[p] = await shellPid(page, p);
    }

    const oldDaemon = killDaemon(home);
    const t0 = Date.now();
    for (const p of panes) await waitForText(page, p, DIVIDER_LINE, { timeoutMs: 15000 });
    t.diagnostic(`dividers shown ${Date.now() - t0} ms after kill -9`);
    await waitReady(page);

    const restored = {};
    for (const p of panes) {
      // A fresh shell answers below the divider.
      const pid = await shellPid(page, p, { timeoutMs: 15000 });
      assert.notEqual(pid, pids[p], `pane ${p}: a new shell`);
      assert.ok(alive(pid), `pane ${p}: the new shell ${pid} is alive`);
      const text = await waitForText(page, p, `PID-${pid}-`);
      const i = text.search(DIVIDER_LINE);
      assert.ok(i > 0, 'there is restored output above the divider');
      assert.ok(text.slice(i).includes(`PID-${pid}-`), 'the new shell answers below the divider');
      // What the old shell showed starts the pane.
      assert.match(text.slice(0, i), new RegExp(`echo ${words[p]}`), `pane ${p}: the old command line is restored`);
      restored[p] = text.slice(0, i);
    }
    t.diagnostic(`new shells answer ${Date.now() - t0} ms after kill -9`);
    // The old shells are gone, a new daemon runs, the panes say they were restored.
    await waitFor(() => Object.values(pids).every((pid) => !alive(pid)), { message: 'the old shells to be gone' });
    const newDaemon = daemonPid(home);
    assert.ok(newDaemon && newDaemon !== oldDaemon && alive(newDaemon), 'a new daemon runs');
    for (const p of panes) {
      await page.locator(`${paneSel(p)} [data-testid=pane-restored]`).waitFor({ state: 'visible', timeout: 10000 });
      assert.equal(await page.getAttribute(paneSel(p), 'data-state'), 'running');
    }
    await shot(page, '04-daemon-killed');

    await t.test(
      'all of the old output stays above the divider',
      {},
      () => {
        for (const p of panes) {
          assert.match(restored[p], new RegExp(`^${words[p]}$`, 'm'), `pane ${p}: the old output line is above the divider`);
          assert.match(restored[p], new RegExp(`^PID-${pids[p]}-`, 'm'), `pane ${p}: the old PID line is above the divider`);
        }
      },
    );
  });
});
