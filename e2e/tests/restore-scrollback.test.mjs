// Issue 20 (start-up): a restored pane replays its screen and a short tail first, then its
// whole scrollback. After a reload, every line the pane had — 3000 numbered lines, far more
// than the first replay's 500 — is in the buffer once, in order, before what is typed next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, waitFor, codeword, shot } from '../lib/index.mjs';

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
