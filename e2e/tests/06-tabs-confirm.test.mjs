// Tabs: the new-tab button and Ctrl+Shift+T create tabs, switching shows the right pane; closing a
// pane with a program running asks first, and confirming closes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, shellPid, layout, treePanes, focusPane,
  shot, codeword, waitFor, alive, childrenOf, paneSel, terminalsList,
} from '../lib/index.mjs';

const visible = (page, paneId) => page.isVisible(`${paneSel(paneId)} .xterm-screen`);

test('tabs: create, switch; closing a busy pane asks first', { timeout: 120000 }, async (t) => {
  await withReprise('06-tabs-confirm', async ({ page, home, defer }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    const w1 = codeword('tabone');
    await typeInPane(page, p1, `echo ${w1}\n`);
    await waitForText(page, p1, new RegExp(`^${w1}$`, 'm'));

    // New tab with the button: it becomes active and shows its own pane.
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'a second tab' });
    await waitReady(page);
    let l = await layout(page);
    assert.equal(l.activeTabId, l.tabs[1].id, 'the new tab is active');
    const [p2] = treePanes(l.tabs[1].root);
    await waitFor(async () => (await visible(page, p2)) && !(await visible(page, p1)), { message: 'tab 2 shown, tab 1 hidden' });
    await waitForPrompt(page, p2);
    const w2 = codeword('tabtwo');
    await typeInPane(page, p2, `echo ${w2}\n`);
    await waitForText(page, p2, new RegExp(`^${w2}$`, 'm'));
    assert.ok(!(await waitForText(page, p1, w1)).includes(w2), 'tab 1 did not get tab 2 input');

    // Ctrl+Shift+T from the terminal: a third tab.
    await focusPane(page, p2);
    await page.keyboard.press('Control+Shift+T');
    await waitFor(async () => (await layout(page)).tabs.length === 3, { message: 'a third tab after Ctrl+Shift+T' });
    await waitReady(page);
    l = await layout(page);
    assert.equal(l.activeTabId, l.tabs[2].id);
    const [p3] = treePanes(l.tabs[2].root);
    await waitFor(async () => (await visible(page, p3)) && !(await visible(page, p2)), { message: 'tab 3 shown' });

    // Switching back by clicking a tab shows that tab's pane and its output.
    await page.click(`[data-testid=tab][data-tab-id="${l.tabs[0].id}"]`);
    await waitFor(async () => (await visible(page, p1)) && !(await visible(page, p2)) && !(await visible(page, p3)), {
      message: 'tab 1 shown, the others hidden',
    });
    assert.equal((await layout(page)).activeTabId, l.tabs[0].id);
    await waitForText(page, p1, new RegExp(`^${w1}$`, 'm'));
    await shot(page, '06-tabs-switched');

    // Tab 2: split, run `sleep 100` in the new pane, close it.
    await page.click(`[data-testid=tab][data-tab-id="${l.tabs[1].id}"]`);
    await waitFor(async () => visible(page, p2), { message: 'tab 2 shown' });
    await page.click(`${paneSel(p2)} [data-testid=split-right]`);
    await waitFor(async () => treePanes((await layout(page)).tabs[1].root).length === 2, { message: 'tab 2 split' });
    await waitReady(page);
    const p4 = treePanes((await layout(page)).tabs[1].root)[1];
    await waitForPrompt(page, p4);
    const shell = await shellPid(page, p4);
    await typeInPane(page, p4, 'sleep 100\n');
    const sleepPid = await waitFor(() => childrenOf(shell)[0], { message: 'sleep to start' });
    defer(() => alive(sleepPid) && process.kill(sleepPid, 'SIGKILL'));

    // Cancel keeps the pane and the program.
    await page.click(`${paneSel(p4)} [data-testid=close-pane]`);
    const dialog = page.locator('[data-testid=confirm-dialog]');
    await dialog.waitFor({ state: 'visible', timeout: 10000 });
    assert.match(await dialog.innerText(), /sleep/, 'the dialog names the running program');
    await page.click('[data-testid=confirm-cancel]');
    await dialog.waitFor({ state: 'hidden', timeout: 10000 });
    assert.equal(treePanes((await layout(page)).tabs[1].root).length, 2, 'cancel keeps the pane');
    assert.ok(alive(sleepPid), 'cancel keeps sleep running');

    // Confirm closes the pane and ends its shell.
    await page.click(`${paneSel(p4)} [data-testid=close-pane]`);
    await dialog.waitFor({ state: 'visible', timeout: 10000 });
    await shot(page, '06-tabs-confirm-dialog');
    await page.click('[data-testid=confirm-ok]');
    await dialog.waitFor({ state: 'hidden', timeout: 10000 });
    await waitFor(async () => (await page.locator(paneSel(p4)).count()) === 0, { message: 'the pane to go' });
    l = await layout(page);
    assert.deepEqual(treePanes(l.tabs[1].root), [p2], 'tab 2 is back to one pane');
    assert.equal(l.tabs.length, 3);
    await waitFor(() => !alive(shell), { timeoutMs: 10000, message: 'the closed pane’s shell to end' });
    let listed;
    await waitFor(
      async () => {
        listed = (await terminalsList(home)).find((x) => x.pid === shell);
        return listed?.status === 'closed';
      },
      { timeoutMs: 10000, message: () => `terminals list to say the terminal is closed: ${JSON.stringify(listed)}` },
    );
    await shot(page, '06-tabs-closed');

    await t.test(
      'the program running in the closed pane ends too, and the daemon lets the terminal go',
      {},
      async () => {
        try {
          await waitFor(() => !alive(sleepPid), { timeoutMs: 3000, message: `sleep ${sleepPid} to end after the pane closed` });
          await waitFor(async () => (await terminalsList(home)).find((x) => x.pid === shell)?.alive === false, {
            timeoutMs: 5000,
            message: 'terminals list to say the closed terminal is not alive',
          });
        } finally {
          if (alive(sleepPid)) process.kill(sleepPid, 'SIGKILL');
        }
      },
    );
  });
});
