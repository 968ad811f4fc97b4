// `reprise agents create` from the command line, while the UI is open: it prints a terminal id,
// the pane appears in the page, and the fake agent received exactly the expected argv (the
// prompt — hostile on purpose — as one argument, never as shell code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { withReprise, waitReady, waitForText, layout, shot, waitFor, REPRISE_BIN, NEEDS_GO, fakeWorld } from '../lib/index.mjs';


test('agents create from the CLI: terminal id printed, pane appears, exact argv', { timeout: 180000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rcli.', workName: 'work dir', env: (dir) => ({ FAKE_AGENT_LOG: path.join(dir, 'starts.log') }) });
  const { tmp, bin, work } = world;
  const starts = process.env.FAKE_AGENT_LOG;
  try {
    await withReprise('agents-cli', async ({ page, home: rhome }) => {
      const hostile = `x'; touch ${tmp}/pwned; echo '$(id)`;
      const out = execFileSync(REPRISE_BIN, ['agents', 'create', '--agent', 'claude', '--prompt', hostile, '--cwd', work, '--home', rhome], {
        encoding: 'utf8',
      }).trim();
      assert.match(out, /^t_[0-9a-f]{16}$/, 'prints the new terminal id');
      await waitFor(async () => (await layout(page)).tabs.some((t) => t.root.terminalId === out), { message: 'the pane appears in the UI' });
      await waitReady(page);
      const tab = (await layout(page)).tabs.find((t) => t.root.terminalId === out);
      await waitForText(page, tab.root.id, 'ack: x', { timeoutMs: 20000 });
      await shot(page, 'agents-cli-created');
      const first = JSON.parse(readFileSync(starts, 'utf8').trim().split('\n')[0]);
      const settings = path.join(rhome, 'hooks', 'claude-settings.json');
      assert.equal(first.argv[0], path.join(bin, 'claude'));
      assert.deepEqual(first.argv.slice(1, 4), ['--settings', settings, '--session-id']);
      assert.match(first.argv[4], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a pre-assigned UUID');
      assert.equal(first.argv[5], hostile, 'the prompt arrives as one argument, untouched');
      assert.equal(first.argv.length, 6);
      assert.equal(first.cwd, work);
      assert.ok(!existsSync(path.join(tmp, 'pwned')), 'nothing in the prompt ran as a command');
      // A refusal is one clear line and exit status 1.
      let err;
      try {
        execFileSync(REPRISE_BIN, ['agents', 'create', '--agent', 'gemini', '--cwd', work, '--home', rhome], { encoding: 'utf8', stdio: 'pipe' });
      } catch (e) {
        err = e;
      }
      assert.equal(err?.status, 1);
      assert.equal(err.stderr.trim(), 'reprise: gemini was not found on PATH');
    });
  } finally {
    world.done();
  }
});
