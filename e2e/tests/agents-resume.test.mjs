// An interrupted agent comes back in the same pane: the fake Claude (internal/fakeagents) is
// started from the New agent menu with a prompt, killed with SIGKILL, the pane shows the resume
// banner, Resume relaunches it in a new terminal that takes the pane (the pane re-attaches), and
// the conversation is back. The Sessions view lists the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { withReprise, waitReady, waitForText, layout, paneSel, shot, codeword, waitFor, typeInPane, NEEDS_GO, fakeWorld } from '../lib/index.mjs';


test('agents resume: an interrupted agent is resumed in its own pane', { timeout: 240000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rae2e.' });
  const { home } = world;
  try {
    await withReprise('agents-resume', async ({ page }) => {
      // New agent menu: found agents first and enabled; missing ones disabled with a reason.
      await page.click('[data-testid=new-agent]');
      await page.waitForSelector('[data-testid=new-agent-item]', { timeout: 10000 });
      const items = await page.$$eval('[data-testid=new-agent-item]', (els) =>
        els.map((e) => ({ id: e.getAttribute('data-agent-id'), disabled: e.getAttribute('aria-disabled') === 'true', title: e.title })),
      );
      assert.equal(items[0].id, 'claude', 'the agent on PATH comes first');
      assert.equal(items[0].disabled, false);
      const gemini = items.find((i) => i.id === 'gemini');
      assert.ok(gemini?.disabled, 'gemini is not on PATH: disabled');
      assert.equal(gemini.title, 'gemini was not found on PATH');

      const word = codeword('pelican');
      await page.click('[data-testid=new-agent-item][data-agent-id=claude]');
      await page.fill('[data-testid=new-agent-prompt]', `remember ${word}`);
      await shot(page, 'agents-new-agent-menu');
      await page.click('[data-testid=run-agent]');
      await page.waitForSelector('[data-testid=new-agent-menu]', { state: 'detached', timeout: 10000 });
      await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'the agent in a new tab' });
      await waitReady(page);
      const l = await layout(page);
      const pane = l.tabs[1].root.id;
      const dead = l.tabs[1].root.terminalId;
      await waitForText(page, pane, `ack: remember ${word}`, { timeoutMs: 20000 });

      // The hooks told the host the session id and that it was prompted.
      const b = await waitFor(
        async () => {
          const x = (await page.evaluate(() => window.__reprise.bindings()))[dead];
          return x?.sessionId && x.prompted ? x : null;
        },
        { timeoutMs: 15000, message: 'a prompted binding with a session id' },
      );
      assert.equal(b.agentId, 'claude');
      assert.equal(await page.textContent(`${paneSel(pane)} [data-testid=pane-title]`), 'Claude Code', 'the pane is titled after the live agent');

      // Kill it under the pane: the banner appears.
      const sessions = path.join(home, '.claude', 'sessions');
      const pidFile = await waitFor(() => existsSync(sessions) && readdirSync(sessions).find((f) => f.endsWith('.json')), { message: 'the fake claude pid file' });
      const pid = JSON.parse(readFileSync(path.join(sessions, pidFile), 'utf8')).pid;
      process.kill(pid, 'SIGKILL');
      const banner = page.locator(`${paneSel(pane)} [data-testid=resume-banner]`);
      await banner.waitFor({ state: 'visible', timeout: 15000 });
      assert.equal(await banner.getAttribute('data-kind'), 'candidate');
      assert.equal(await banner.locator('[data-testid=resume-banner-text]').textContent(), 'Claude Code was interrupted');
      assert.equal(await banner.locator('[data-testid=resume-banner-text]').getAttribute('aria-live'), 'polite');
      assert.ok(await banner.locator('[aria-label="Dismiss resume prompt"]').isVisible());
      await shot(page, 'agents-resume-banner');

      // Resume: a new terminal takes the pane, the conversation is back, the banner is gone.
      await page.click(`${paneSel(pane)} [data-testid=resume-button]`);
      await waitFor(async () => (await page.getAttribute(paneSel(pane), 'data-terminal-id')) !== dead, { timeoutMs: 20000, message: 'the pane on a new terminal' });
      await waitReady(page);
      await waitForText(page, pane, `ack: remember ${word}`, { timeoutMs: 20000 });
      await banner.waitFor({ state: 'detached', timeout: 10000 });
      assert.equal(await page.textContent(`${paneSel(pane)} [data-testid=pane-title]`), 'Claude Code');
      const after = (await page.evaluate(() => window.__reprise.bindings()))[dead];
      assert.equal(after.endReason, 'resumed', 'the old binding was consumed');
      assert.equal((await layout(page)).tabs.length, 2, 'resumed in place, not in a new tab');

      // It still answers in the same conversation.
      await typeInPane(page, pane, 'and then?\n');
      await waitForText(page, pane, 'ack: and then?', { timeoutMs: 15000 });

      // Sessions view: the session is there, searchable.
      await page.keyboard.press('Control+Shift+S');
      const row = page.locator(`[data-testid=session-row][data-session-id="${b.sessionId}"]`);
      await row.waitFor({ state: 'visible', timeout: 10000 });
      assert.match(await row.innerText(), /Claude Code/);
      await page.fill('[data-testid=sessions-query]', b.sessionId.slice(0, 8));
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await shot(page, 'agents-sessions');
      await page.fill('[data-testid=sessions-query]', 'no-such-session-zzz');
      await page.waitForSelector('[data-testid=sessions-empty]', { timeout: 10000 });
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=sessions-view]', { state: 'detached', timeout: 10000 });

      assert.deepEqual(page.errors, [], 'no page errors');
    });
  } finally {
    world.done();
  }
});
