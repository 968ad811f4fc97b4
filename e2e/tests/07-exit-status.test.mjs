// `exit 3`: the pane stays, says how the shell ended, and offers a restart that gives a working shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, shellPid, shot, codeword, waitFor, alive,
  paneSel, terminalsList,
} from '../lib/index.mjs';

const RESTART_DIVIDER = /^── the process above exited with status 3 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; new shell below$/m;

test('exit 3: exited state with the status, restart gives a new shell', { timeout: 90000 }, async (t) => {
  await withReprise('07-exit-status', async ({ page, home }) => {
    const [pane] = await paneIds(page);
    await waitForPrompt(page, pane);
    const word = codeword('last');
    await typeInPane(page, pane, `echo ${word}\n`);
    await waitForText(page, pane, new RegExp(`^${word}$`, 'm'));
    const oldPid = await shellPid(page, pane);
    const oldTerminal = await page.getAttribute(paneSel(pane), 'data-terminal-id');

    await typeInPane(page, pane, 'exit 3\n');
    await waitFor(async () => (await page.getAttribute(paneSel(pane), 'data-state')) === 'exited', {
      timeoutMs: 15000,
      message: 'the pane to show the exited state',
    });
    const pill = page.locator(`${paneSel(pane)} [data-testid=pane-state]`);
    assert.equal((await pill.innerText()).trim(), 'exited (status 3)');
    const restart = page.locator(`${paneSel(pane)} [data-testid=restart-pane]`);
    await restart.waitFor({ state: 'visible', timeout: 5000 });
    assert.deepEqual(await paneIds(page), [pane], 'the pane stays');
    await waitFor(() => !alive(oldPid), { message: 'the old shell to be gone' });
    const listed = (await terminalsList(home)).find((x) => x.id === oldTerminal);
    assert.equal(listed?.status, 'exited');
    assert.equal(listed?.exitCode, 3, 'terminals list has exit status 3');
    await shot(page, '07-exited');

    await restart.click();
    await waitFor(async () => (await page.getAttribute(paneSel(pane), 'data-state')) === 'running', {
      timeoutMs: 15000,
      message: 'the pane to run again',
    });
    await waitReady(page);
    assert.notEqual(await page.getAttribute(paneSel(pane), 'data-terminal-id'), oldTerminal, 'a new terminal in the pane');
    assert.equal(await restart.count(), 0, 'no restart button on a running pane');
    const text = await waitForText(page, pane, RESTART_DIVIDER, { timeoutMs: 15000 });
    assert.ok(text.index > 0, 'old output above the divider');
    const newPid = await shellPid(page, pane, { timeoutMs: 15000 });
    assert.notEqual(newPid, oldPid);
    assert.ok(alive(newPid), 'the new shell runs');
    const w2 = codeword('again');
    await typeInPane(page, pane, `echo ${w2}\n`);
    await waitForText(page, pane, new RegExp(`^${w2}$`, 'm'));
    await shot(page, '07-restarted');

    await t.test(
      'the old output stays above the divider',
      {},
      async () => {
        const all = await waitForText(page, pane, RESTART_DIVIDER);
        const above = all.input.slice(0, all.index);
        assert.match(above, new RegExp(`^${word}$`, 'm'), 'the old output line');
        assert.match(above, new RegExp(`^PID-${oldPid}-`, 'm'), 'the old PID line');
      },
    );
  });
});
