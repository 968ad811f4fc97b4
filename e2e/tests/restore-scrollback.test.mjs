// Issue 20 (start-up): a restored pane replays its screen and a short tail first, then its
// whole scrollback. After a reload, every line the pane had — 3000 numbered lines, far more
// than the first replay's 500 — is in the buffer once, in order, before what is typed next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, waitFor, codeword, shot, sleep } from '../lib/index.mjs';

const N = 3000;

test('reload: the whole scrollback comes back, in order, before new output', { timeout: 90000 }, async () => {
  await withReprise('restore-scrollback', async ({ page }) => {
    const [p] = await paneIds(page);
    await waitForPrompt(page, p);
    const word = codeword('sb');
    await typeInPane(page, p, `seq -f '${word} %g' ${N}\n`);
    await waitForText(page, p, new RegExp(`^${word} ${N}$`, 'm'));

    await page.reload();
    await waitReady(page);
    // The start's early attach was taken: the pane (its size kept from the first load) asked
    // for its terminal before the hello (TerminalView.prefetch).
    const m = await page.evaluate(() => window.__reprise.startMarks());
    assert.ok(m.marks[`attach:${p}`] && m.marks.hello && m.marks[`attach:${p}`] < m.marks.hello, `attached before the hello: ${JSON.stringify(m.marks)}`);
    const after = codeword('after');
    // Typed as soon as the pane is attached: its echo must come after the whole scrollback.
    await typeInPane(page, p, `echo ${after}\n`);
    let text = '';
    await waitFor(async () => {
      text = await page.evaluate((id) => window.__reprise.paneText(id), p);
      return text.includes(`${word} 1\n`) && new RegExp(`^${after}$`, 'm').test(text);
    }, { timeoutMs: 20000, message: () => `the first line and the echo after reload (have ${text.length} chars)` });
    await shot(page, 'restore-scrollback-after-reload');
    const lines = text.split('\n');
    const got = lines.filter((l) => l.startsWith(`${word} `)).map((l) => Number(l.slice(word.length + 1)));
    assert.deepEqual(got, Array.from({ length: N }, (_, i) => i + 1), 'every numbered line once, in order');
    const lastNumbered = lines.lastIndexOf(`${word} ${N}`);
    const echoed = lines.findIndex((l) => l === after);
    assert.ok(echoed > lastNumbered, `the echo typed after the reload (line ${echoed}) follows the scrollback (line ${lastNumbered})`);
  });
});

// The start attaches the panes of the layout the page showed last, before the hello; a pane whose
// terminal is gone since (the daemon was killed, the pane came back with a new terminal) must
// end up attached to the terminal the hello names, once, with no error on it. (With the
// early attach's failure ignored and a re-attach at hello as well, the pane got "terminal … is
// already attached" and no terminal.)
test('reload with a start cache naming a terminal that is gone: the pane attaches to its own, no error', { timeout: 60000 }, async () => {
  await withReprise('restore-stale-start', async ({ page }) => {
    const [p] = await paneIds(page);
    await waitForPrompt(page, p);
    const word = codeword('stale');
    await typeInPane(page, p, `echo ${word}\n`);
    await waitForText(page, p, new RegExp(`^${word}$`, 'm'));
    await page.evaluate((id) => localStorage.setItem('reprise.startPanes', JSON.stringify([{ paneId: id, terminalId: 't_0000000000000000' }])), p);
    await page.reload();
    await waitReady(page);
    await waitForText(page, p, new RegExp(`^${word}$`, 'm'));
    const after = codeword('after');
    await typeInPane(page, p, `echo ${after}\n`);
    await waitForText(page, p, new RegExp(`^${after}$`, 'm'));
    await sleep(500); // a second attach's error would show by now
    const errors = await page.evaluate(() => [...document.querySelectorAll('.pane-error')].map((e) => e.textContent));
    await shot(page, 'restore-stale-start');
    assert.deepEqual(errors, [], 'no pane error');
    const handles = await page.evaluate(() => Object.values(window.__reprise.stats()).map((s) => s.paneId));
    assert.deepEqual(handles, [p], 'one live attachment, the pane’s');
  });
});
