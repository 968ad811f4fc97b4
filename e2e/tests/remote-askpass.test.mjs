// Issue 18 (askpass): ssh's questions reach the window. The only key sshd accepts has a
// passphrase and there is no agent: "New tab on host…" → box brings up "box asks: Enter
// passphrase for key …" with a masked field; typing the passphrase connects the host and the tab
// opens there. Then a host whose key this machine has never seen (its own known_hosts, empty,
// StrictHostKeyChecking ask): the question shows the fingerprint with Accept / Reject; Accept
// (ssh records the key, as it would on a terminal), then the passphrase, and that host connects too.
// Screens at 1600/700 px, dark/light.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withReprise, codeword, daemonPid, focusPane, haveSSHD, paneIds, REPRISE_BIN, sshClientsOf, startSSHD, waitFor, waitForText, waitReady } from '../lib/index.mjs';
import { shots } from './basics-b-lib.mjs';

const execFileP = promisify(execFile);
const PASS = 'open sesame';

function kill(pid) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (e) {
    if (e.code !== 'ESRCH') throw e;
  }
}

async function newTabOn(page, host) {
  await page.keyboard.press('Control+Shift+P');
  await page.waitForSelector('[data-testid=palette]');
  await page.keyboard.type('new tab on host');
  await page.keyboard.press('Enter');
  await page.waitForSelector(`[data-testid=menu-item][data-action="host:${host}"]`);
  await page.click(`[data-testid=menu-item][data-action="host:${host}"]`);
}

const dialogText = (page) => page.textContent('[data-testid=askpass-dialog]');

/** Waits for the dialog to show a prompt matching re (a new prompt replaces the last). */
async function waitPrompt(page, re, message) {
  await waitFor(async () => re.test((await page.textContent('[data-testid=askpass-prompt]').catch(() => '')) ?? ''), { timeoutMs: 30000, message });
}

/** The pane on the host once the tab opened, after typing a codeword line in it. */
async function remotePaneWorks(page, known, host) {
  await waitFor(async () => (await paneIds(page)).length === known.length + 1, { timeoutMs: 40000, message: `a new pane on ${host}` });
  await waitReady(page, { timeoutMs: 30000 });
  const pane = (await paneIds(page)).find((p) => !known.includes(p));
  assert.equal(await page.textContent(`[data-testid=pane][data-pane-id="${pane}"] [data-testid=pane-host]`), host);
  await focusPane(page, pane);
  const cw = codeword('ask');
  await page.keyboard.type(`echo ${cw}$((6*7))\n`);
  await waitForText(page, pane, `${cw}42`, { timeoutMs: 20000 });
  return pane;
}

test('remote host: ssh asks for the passphrase and the host key in the window', { skip: haveSSHD() ? false : 'openssh-server is not installed', timeout: 240000 }, async () => {
  const sshd = await startSSHD([], { passphrase: PASS });
  const remoteHome = path.join(sshd.dir, 'r');
  // "fresh": the same server under another name (another ControlMaster), with an empty
  // known_hosts of its own: its host key is unknown here and ssh asks.
  const freshKnown = path.join(sshd.dir, 'fresh_known_hosts');
  writeFileSync(freshKnown, '', { mode: 0o600 });
  const freshConfig = path.join(sshd.dir, 'fresh_config');
  writeFileSync(
    freshConfig,
    `Host fresh\n  HostName localhost\n  AddressFamily inet\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.userKey}\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile ${freshKnown}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking ask\n  LogLevel ERROR\n`,
    { mode: 0o600 },
  );
  let localHome = null;
  try {
    await withReprise('remote-askpass', async ({ page, home }) => {
      localHome = home;
      await page.setViewportSize({ width: 1600, height: 900 });
      const env = { ...process.env, REPRISE_HOME: home };
      await execFileP(REPRISE_BIN, ['hosts', 'add', 'box', '--ssh', sshd.alias, '--ssh-config', sshd.config, '--remote-home', remoteHome], { env });
      await execFileP(REPRISE_BIN, ['hosts', 'add', 'fresh', '--ssh', 'fresh', '--ssh-config', freshConfig, '--remote-home', remoteHome], { env });
      const [local] = await paneIds(page);
      await focusPane(page, local);

      // The passphrase: a masked field, focused; nothing typed before it reaches a terminal.
      await newTabOn(page, 'box');
      await page.waitForSelector('[data-testid=askpass-dialog]', { timeout: 30000 });
      await waitPrompt(page, /passphrase/i, 'the passphrase prompt');
      assert.match(await page.textContent('#askpass-title'), /^box asks:/);
      assert.equal(await page.getAttribute('[data-testid=askpass-input]', 'type'), 'password');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'askpass-input');
      await shots(page, 'remote-askpass-passphrase');
      await page.keyboard.type(PASS);
      assert.equal(await page.inputValue('[data-testid=askpass-input]'), PASS);
      await page.keyboard.press('Enter');
      await waitFor(async () => !(await page.$('[data-testid=askpass-dialog]')), { message: 'the dialog closes' });
      const boxPane = await remotePaneWorks(page, [local], 'box');

      // An unknown host key: the question with its fingerprint, Accept / Reject, no field.
      await newTabOn(page, 'fresh');
      await page.waitForSelector('[data-testid=askpass-dialog]', { timeout: 30000 });
      await waitPrompt(page, /yes\/no/, 'the host-key question');
      const q = await dialogText(page);
      assert.match(q, /^fresh asks:/);
      assert.match(q, /authenticity of host/);
      assert.match(q, /SHA256:/, 'the fingerprint is shown');
      assert.equal(await page.$('[data-testid=askpass-input]'), null, 'no text field for a yes/no question');
      await shots(page, 'remote-askpass-hostkey');
      await page.click('[data-testid=askpass-accept]');
      // ssh recorded the key as it does on a terminal; then it wants the passphrase.
      await waitPrompt(page, /passphrase/i, 'the passphrase prompt for fresh');
      assert.match(readFileSync(freshKnown, 'utf8'), /ssh-ed25519/);
      await page.fill('[data-testid=askpass-input]', PASS);
      await page.click('[data-testid=askpass-ok]');
      await remotePaneWorks(page, [local, boxPane], 'fresh');
      assert.equal(await page.$('[data-testid=askpass-dialog]'), null);
    });
  } finally {
    if (localHome) for (const pid of sshClientsOf(localHome)) kill(pid);
    const rd = daemonPid(remoteHome);
    if (rd) kill(rd);
    await sshd.close();
  }
});
