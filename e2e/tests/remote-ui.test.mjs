// Issue 18 (UI): a real sshd on 127.0.0.1 is a remote host. Settings → Hosts lists it (and adds
// and removes another), "New tab on host…" in the palette opens a tab there, whose pane and tab
// show the host; when the link drops (the ControlMaster SIGKILLed while sshd refuses new
// connections) the pane says "disconnected from box — reconnecting", dimmed, never
// "interrupted"; when sshd is back the same shell carries on. Screens at 1600/700 px, dark/light.
// A second test: after a pty daemon loss the restore summary's row of a remote pane names its
// host (the forecast asked that host's own daemon: still running there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { withReprise, codeword, daemonPid, focusPane, haveSSHD, paneIds, REPRISE_BIN, sshClientsOf, startSSHD, waitFor, waitForText, waitReady } from '../lib/index.mjs';
import { shots } from './basics-b-lib.mjs';

const execFileP = promisify(execFile);

/** SIGKILL, if it still runs (killing the ControlMaster ends its channels' clients too). */
function kill(pid) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (e) {
    if (e.code !== 'ESRCH') throw e;
  }
}

const hostRow = (page, name) => `[data-testid=host-row][data-host="${name}"]`;
const hostStatus = (page, name) => page.textContent(`${hostRow(page, name)} [data-testid=host-status]`).catch(() => null);

async function openPalette(page, query) {
  await page.keyboard.press('Control+Shift+P');
  await page.waitForSelector('[data-testid=palette]');
  await page.keyboard.type(query);
  await page.keyboard.press('Enter');
}

async function hostsSettings(page) {
  await openPalette(page, 'settings hosts');
  await page.waitForSelector('[data-testid=hosts-settings]');
}

test('remote host: Settings → Hosts, New tab on host, host labels, link down is "disconnected"', { skip: haveSSHD() ? false : 'openssh-server is not installed', timeout: 240000 }, async (t) => {
  const sshd = await startSSHD();
  const remoteHome = path.join(sshd.dir, 'r');
  let localHome = null;
  try {
    await withReprise('remote-ui', async ({ page, home }) => {
      localHome = home;
      await page.setViewportSize({ width: 1600, height: 900 });
      const env = { ...process.env, REPRISE_HOME: home };
      await execFileP(REPRISE_BIN, ['hosts', 'add', 'box', '--ssh', sshd.alias, '--ssh-config', sshd.config, '--remote-home', remoteHome], { env });
      const [local] = await paneIds(page);
      await focusPane(page, local);

      // Settings → Hosts: the CLI's host, its destination, status unknown (nothing used it yet).
      await hostsSettings(page);
      await page.waitForSelector(hostRow(page, 'box'));
      assert.equal(await page.textContent(`${hostRow(page, 'box')} code`), sshd.alias);
      assert.equal(await hostStatus(page, 'box'), 'unknown');
      // Add one from the form, refuse a bad one with one line, remove the added one.
      await page.fill('[data-testid=host-name]', 'other');
      await page.fill('[data-testid=host-ssh]', 'me@127.0.0.1:1');
      await page.click('[data-testid=host-add-button]');
      await page.waitForSelector(hostRow(page, 'other'));
      await page.fill('[data-testid=host-name]', 'local');
      await page.fill('[data-testid=host-ssh]', 'x');
      await page.click('[data-testid=host-add-button]');
      const err = await (await page.waitForSelector('[data-testid=hosts-error]')).textContent();
      assert.match(err, /invalid name "local"/);
      await shots(page, 'remote-ui-hosts');
      await page.click(`${hostRow(page, 'other')} [data-testid=host-remove]`);
      await waitFor(async () => !(await page.$(hostRow(page, 'other'))), { message: 'host "other" removed' });
      await page.keyboard.press('Escape');

      // The New agent popover offers the hosts; right-click on "+" is the same host menu.
      await page.keyboard.press('Control+Shift+N');
      await page.waitForSelector('[data-testid=new-agent-host]');
      const opts = await page.$$eval('[data-testid=new-agent-host] option', (els) => els.map((e) => e.textContent));
      assert.deepEqual(opts, ['This machine', `box (${sshd.alias})`]);
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await page.$('[data-testid=new-agent-menu]')), { message: 'New agent closed' });
      await page.click('[data-testid=new-tab]', { button: 'right' });
      await page.waitForSelector('[data-testid=menu-item][data-action="host:box"]');
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await page.$('[data-testid=context-menu]')), { message: 'host menu closed' });

      // Palette → New tab on host… → box.
      await openPalette(page, 'new tab on host');
      await page.waitForSelector('[data-testid=context-menu]');
      const items = await page.$$eval('[data-testid=menu-item]', (els) => els.map((e) => e.textContent));
      assert.deepEqual(items.slice(0, 2), ['This machine', `box — ${sshd.alias}`]);
      await page.click('[data-testid=menu-item][data-action="host:box"]');
      await waitFor(async () => (await paneIds(page)).length === 2, { timeoutMs: 30000, message: 'a second pane (on box)' });
      await waitReady(page, { timeoutMs: 30000 });
      const remote = (await paneIds(page)).find((p) => p !== local);
      const sel = `[data-testid=pane][data-pane-id="${remote}"]`;
      assert.equal(await page.textContent(`${sel} [data-testid=pane-host]`), 'box');
      assert.equal(await page.textContent('[data-testid=tab][aria-selected=true] [data-testid=tab-host]'), 'box');
      assert.equal(await page.$(`[data-testid=pane][data-pane-id="${local}"] [data-testid=pane-host]`), null, 'a local pane has no host label');
      const cw1 = codeword('rui');
      await focusPane(page, remote);
      await page.keyboard.type(`echo ${cw1}$((6*7))\n`);
      await waitForText(page, remote, `${cw1}42`, { timeoutMs: 20000 });

      // The link drops and stays down: sshd takes no new connections, the ssh clients die.
      await sshd.stop();
      const clients = sshClientsOf(home);
      assert.ok(clients.length > 0, 'ssh clients of this home run');
      for (const pid of clients) kill(pid);
      const line = `disconnected from box — reconnecting`;
      await waitFor(async () => ((await page.textContent(`${sel} [data-testid=pane-offline]`).catch(() => '')) ?? '').includes(line), {
        timeoutMs: 30000,
        message: 'the remote pane says it is disconnected',
      });
      assert.equal(await page.getAttribute(sel, 'data-state'), 'offline');
      assert.match(await page.getAttribute(sel, 'class'), /\bdimmed\b/);
      assert.equal(await page.textContent(`${sel} [data-testid=pane-state]`), 'disconnected');
      const text = await page.textContent(sel);
      assert.ok(!/interrupted/i.test(text), `never "interrupted": ${text}`);
      assert.equal(await page.$(`[data-testid=pane][data-pane-id="${local}"] [data-testid=pane-offline]`), null, 'the local pane is not disconnected');
      await shots(page, 'remote-ui-disconnected');
      await hostsSettings(page);
      await waitFor(async () => (await hostStatus(page, 'box')) === 'disconnected', { message: 'Settings → Hosts says disconnected' });
      await page.keyboard.press('Escape');

      // The link comes back: the same terminal, still running, no banner.
      const tid = await page.getAttribute(sel, 'data-terminal-id');
      await sshd.start();
      await waitFor(async () => !(await page.$(`${sel} [data-testid=pane-offline]`)), { timeoutMs: 40000, message: 'the link back' });
      assert.equal(await page.getAttribute(sel, 'data-terminal-id'), tid, 'the same terminal');
      assert.equal(await page.getAttribute(sel, 'data-state'), 'running');
      assert.equal(await page.$(`${sel} [data-testid=resume-banner]`), null, 'no banner');
      // The pane's link clears when the host's control connection is back, before the viewer's
      // own ssh channel has resubscribed: keys typed in between wait for it in the host
      // (viewer_remote.go remoteInputClient) instead of being reported lost.
      await t.test('keys typed as soon as the link is back reach the remote shell', async () => {
        await focusPane(page, remote);
        const cw2 = codeword('rui');
        await page.keyboard.type(`echo ${cw2}$((6*7))\n`);
        await waitForText(page, remote, `${cw2}42`, { timeoutMs: 20000 });
      });
      await hostsSettings(page);
      await waitFor(async () => (await hostStatus(page, 'box')) === 'connected', { message: 'Settings → Hosts says connected' });
      await page.keyboard.press('Escape');
      await shots(page, 'remote-ui-back');
    });
  } finally {
    // The ControlPersist master outlives serve; the remote daemon (and its shell) is detached.
    if (localHome) for (const pid of sshClientsOf(localHome)) kill(pid);
    const rd = daemonPid(remoteHome);
    if (rd) kill(rd);
    await sshd.close();
  }
});

test('restore summary: the row of a remote pane shows its host, from that host\'s daemon', { skip: haveSSHD() ? false : 'openssh-server is not installed', timeout: 180000 }, async () => {
  const sshd = await startSSHD();
  const remoteHome = path.join(sshd.dir, 'r');
  let localHome = null;
  try {
    await withReprise('remote-restore', async ({ page, home }) => {
      localHome = home;
      await page.setViewportSize({ width: 1600, height: 900 });
      const env = { ...process.env, REPRISE_HOME: home };
      await execFileP(REPRISE_BIN, ['hosts', 'add', 'box', '--ssh', sshd.alias, '--ssh-config', sshd.config, '--remote-home', remoteHome], { env });
      const [local] = await paneIds(page);
      await openPalette(page, 'new tab on host');
      await page.waitForSelector('[data-testid=menu-item][data-action="host:box"]');
      await page.click('[data-testid=menu-item][data-action="host:box"]');
      await waitFor(async () => (await paneIds(page)).length === 2, { timeoutMs: 30000, message: 'a second pane (on box)' });
      await waitReady(page, { timeoutMs: 30000 });
      const remote = (await paneIds(page)).find((p) => p !== local);
      const cw = codeword('rrs');
      await focusPane(page, remote);
      await page.keyboard.type(`echo ${cw}$((6*7))\n`);
      await waitForText(page, remote, `${cw}42`, { timeoutMs: 20000 });

      // This machine's pty daemon dies: the host forecasts every pane — the remote one by
      // asking box's daemon, where it still runs.
      const pid = daemonPid(home);
      assert.ok(pid, 'the local pty daemon runs');
      kill(pid);
      await page.waitForSelector('[data-testid=restore-summary]', { timeout: 30000 });
      await page.click('[data-testid=restore-summary]');
      await page.waitForSelector('[data-testid=restore-panel]');
      const row = `[data-testid=restore-pane][data-pane-id="${remote}"]`;
      await page.waitForSelector(row);
      assert.equal(await page.textContent(`${row} [data-testid=restore-host]`), 'box');
      assert.equal(await page.getAttribute(row, 'data-action'), 'attach', 'running on box: it reattaches');
      assert.equal(await page.$(`[data-testid=restore-pane][data-pane-id="${local}"] [data-testid=restore-host]`), null, 'a local row has no host');
      await shots(page, 'remote-ui-restore');
    });
  } finally {
    if (localHome) for (const pid of sshClientsOf(localHome)) kill(pid);
    const rd = daemonPid(remoteHome);
    if (rd) kill(rd);
    await sshd.close();
  }
});
