// Issue 14, path 6: after a daemon loss whose pane's directory is gone, the pane must not offer
// a Resume that fails with "No such directory". It says why; for Claude Code (which keeps a
// conversation by its directory) it offers "Recreate folder and resume", which creates the
// empty folder again and brings the conversation back in the same pane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { withReprise, waitReady, waitForText, layout, paneSel, shot, codeword, waitFor, typeInPane, rpc, killDaemon, NEEDS_GO, fakeWorld } from '../lib/index.mjs';

test('cwd gone: no Resume that cannot work; Recreate folder and resume brings the conversation back', { timeout: 240000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rcg2e.' });
  try {
    await withReprise('agents-cwd-gone', async ({ page, home }) => {
      const proj = path.join(world.tmp, 'proj', 'sub');
      mkdirSync(proj, { recursive: true });
      const word = codeword('heron');
      const run = await rpc(page, 'agents.run', { agent: 'claude', prompt: `remember ${word}`, cwd: proj });
      await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'the agent in a new tab' });
      await waitReady(page);
      const pane = run.paneId;
      await waitForText(page, pane, `ack: remember ${word}`, { timeoutMs: 20000 });
      await waitFor(async () => (await page.evaluate(() => window.__reprise.bindings()))[run.terminalId]?.prompted, {
        timeoutMs: 15000,
        message: 'a prompted binding',
      });

      // The folder goes, then the daemon dies under the agent.
      rmSync(path.join(world.tmp, 'proj'), { recursive: true, force: true });
      killDaemon(home);
      const banner = page.locator(`${paneSel(pane)} [data-testid=resume-banner]`);
      await waitFor(async () => (await banner.getAttribute('data-kind').catch(() => null)) === 'unavailable', {
        timeoutMs: 20000,
        message: 'the banner says why it cannot resume',
      });
      assert.equal(await banner.locator('[data-testid=resume-button]').count(), 0, 'no Resume button that would fail');
      const why = await banner.locator('[data-testid=resume-unavailable]').textContent();
      assert.match(why, /is gone/);
      assert.ok(why.includes(proj), why);
      const recreate = banner.locator('[data-testid=recreate-resume-button]');
      assert.equal(await recreate.textContent(), 'Recreate folder and resume');
      await shot(page, 'agents-cwd-gone-banner');

      await recreate.click();
      // The pane must be on the terminal the resume made, not merely on another than the agent's
      // first: since the daemon died it shows the shell cold-respawned in its place, and keys
      // typed there go to that shell (the first of 'and now?' did, under load, and the fake
      // answered "ack: nd now?"). The resumed terminal is the one whose binding carries the
      // conversation on (the same session id).
      let resumed = '';
      await waitFor(
        async () => {
          const bs = await page.evaluate(() => window.__reprise.bindings());
          resumed = Object.values(bs).find((b) => b.sessionId === run.sessionId && b.terminalId !== run.terminalId)?.terminalId ?? '';
          return resumed !== '' && (await page.getAttribute(paneSel(pane), 'data-terminal-id')) === resumed && !(await banner.count());
        },
        { timeoutMs: 20000, message: () => `the pane on the resumed terminal (${resumed || 'none yet'}), the banner gone` },
      );
      assert.ok(existsSync(proj) && statSync(proj).isDirectory(), 'the folder was recreated');
      assert.equal(statSync(proj).mode & 0o777, 0o700);
      // The same conversation: the fake prints the old turn back, then answers the next one.
      await waitReady(page);
      await typeInPane(page, pane, 'and now?\n');
      await waitForText(page, pane, 'ack: and now?', { timeoutMs: 15000 });
      const tid = await page.getAttribute(paneSel(pane), 'data-terminal-id');
      assert.equal(tid, resumed, 'the pane stayed on the resumed terminal');
      await waitFor(async () => (await page.evaluate(() => window.__reprise.bindings()))[tid]?.outcome === 'resumed', {
        timeoutMs: 15000,
        message: 'the agent confirmed the resume',
      });
      assert.equal((await layout(page)).tabs.length, 2, 'resumed in place');
      assert.deepEqual(page.errors, [], 'no page errors');
    });
  } finally {
    world.done();
  }
});
