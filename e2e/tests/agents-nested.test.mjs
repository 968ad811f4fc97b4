// An agent run inside the agent Reprise launched (Claude's Bash tool running `codex exec`)
// inherits the pane's REPRISE_TERMINAL_ID, so its hooks name the pane's terminal. They used to
// take the pane's binding over: when Claude was then killed, the pane said "Codex was interrupted"
// and offered the nested Codex session. The pane's agent stays Claude; its banner resumes Claude.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { withReprise, waitReady, waitForText, layout, paneSel, shot, codeword, waitFor, NEEDS_GO, fakeWorld, REPRISE_BIN } from '../lib/index.mjs';

test('agents nested: a nested agent does not take the pane; the banner resumes the launched agent', { timeout: 240000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rne2e.' });
  try {
    await withReprise('agents-nested', async ({ page, home }) => {
      const word = codeword('heron');
      await page.click('[data-testid=new-agent]');
      await page.click('[data-testid=new-agent-item][data-agent-id=claude]');
      await page.fill('[data-testid=new-agent-prompt]', `remember ${word}`);
      await page.click('[data-testid=run-agent]');
      await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'the agent in a new tab' });
      await waitReady(page);
      const l = await layout(page);
      const pane = l.tabs[1].root.id;
      const tid = l.tabs[1].root.terminalId;
      await waitForText(page, pane, `ack: remember ${word}`, { timeoutMs: 20000 });
      const outer = await waitFor(
        async () => {
          const x = (await page.evaluate(() => window.__reprise.bindings()))[tid];
          return x?.sessionId && x.prompted ? x : null;
        },
        { timeoutMs: 15000, message: 'a prompted binding with a session id' },
      );

      // The nested Codex's hooks, as `reprise hook` runs them from inside the pane.
      const nested = '0192f3a4-7b2c-7d3e-8f4a-5b6c7d8e9f00';
      const env = { PATH: process.env.PATH, REPRISE_TERMINAL_ID: tid, REPRISE_HOME: home };
      for (const [event, extra] of [
        ['SessionStart', { source: 'startup' }],
        ['UserPromptSubmit', { prompt: 'summarise the diff' }],
        ['SessionEnd', { reason: 'other' }],
      ]) {
        execFileSync(REPRISE_BIN, ['hook', 'codex', event], { env, input: JSON.stringify({ session_id: nested, cwd: world.work, ...extra }) });
      }
      // Applied (the host drains the inbox when poked): nothing left pending, the pane still Claude's.
      await waitFor(() => !existsSync(path.join(home, 'inbox')) || readdirSync(path.join(home, 'inbox')).filter((f) => f.endsWith('.json')).length === 0, {
        message: 'the nested hooks applied',
      });
      const b = (await page.evaluate(() => window.__reprise.bindings()))[tid];
      assert.equal(b.agentId, 'claude', 'the pane is still Claude');
      assert.equal(b.sessionId, outer.sessionId);
      assert.equal(b.endReason ?? '', '', 'the nested goodbye did not end it');

      // Kill Claude: the banner is Claude's, and Resume brings Claude's conversation back.
      const sessions = path.join(world.home, '.claude', 'sessions');
      const pidFile = await waitFor(() => existsSync(sessions) && readdirSync(sessions).find((f) => f.endsWith('.json')), { message: 'the fake claude pid file' });
      process.kill(JSON.parse(readFileSync(path.join(sessions, pidFile), 'utf8')).pid, 'SIGKILL');
      const banner = page.locator(`${paneSel(pane)} [data-testid=resume-banner]`);
      await banner.waitFor({ state: 'visible', timeout: 15000 });
      assert.equal(await banner.locator('[data-testid=resume-banner-text]').textContent(), 'Claude Code was interrupted');
      await shot(page, 'agents-nested-banner');
      await page.click(`${paneSel(pane)} [data-testid=resume-button]`);
      await waitFor(async () => (await page.getAttribute(paneSel(pane), 'data-terminal-id')) !== tid, { timeoutMs: 20000, message: 'the pane on a new terminal' });
      await waitReady(page);
      await waitForText(page, pane, `ack: remember ${word}`, { timeoutMs: 20000 });
      const nt = await page.getAttribute(paneSel(pane), 'data-terminal-id');
      const nb = await waitFor(async () => (await page.evaluate(() => window.__reprise.bindings()))[nt], { message: 'the resumed binding' });
      assert.equal(nb.agentId, 'claude');
      assert.equal(nb.sessionId, outer.sessionId, 'Claude resumed its own session');
      assert.deepEqual(page.errors, [], 'no page errors');
    });
  } finally {
    world.done();
  }
});
