// Typing into a pane: a codeword comes back; a 200-character burst arrives whole and in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, typeInPane, waitForText, waitForPrompt, paneText, shot, codeword } from '../lib/index.mjs';

test('typing: echo a codeword, and a 200-character burst arrives in order', { timeout: 90000 }, async () => {
  await withReprise('01-typing', async ({ page }) => {
    const [pane] = await paneIds(page);
    assert.ok(pane, 'the page shows a pane');
    await waitForPrompt(page, pane);

    const word = codeword('cw');
    await typeInPane(page, pane, `echo ${word}\n`);
    // The output line is the codeword alone (the command line also has "echo ").
    await waitForText(page, pane, new RegExp(`^${word}$`, 'm'));

    // 200 characters typed as fast as key events go, read back by the shell.
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+.,:@%';
    let burst = '';
    for (let i = 0; i < 200; i++) burst += alphabet[Math.floor(Math.random() * alphabet.length)];
    // The burst goes once the shell is in `read`: keys typed ahead while bash's readline still
    // reads the command line can be gathered into readline's own buffer with it (it reads all
    // that is waiting on the tty), where `read` never sees them; under load the shell then
    // waits for ever, though every byte reached the pty (a CI run, twice).
    await typeInPane(page, pane, 'echo ready1-$((6*7)); read x; echo "got:$x" "len:${#x}"\n');
    await waitForText(page, pane, /^ready1-42$/m);
    await page.keyboard.type(burst + '\n');
    // The reply may wrap over several rows; it is matched with the rows joined.
    await waitForText(page, pane, `got:${burst} len:200`, { joinWrapped: true });

    // The same again as one input event (a paste-like insertText), with other characters.
    let burst2 = '';
    for (let i = 0; i < 200; i++) burst2 += alphabet[(i * 7 + 3) % alphabet.length];
    await typeInPane(page, pane, 'echo ready2-$((6*7)); read y; echo "got2:$y" "len:${#y}"\n');
    await waitForText(page, pane, /^ready2-42$/m);
    await page.keyboard.insertText(burst2);
    await page.keyboard.press('Enter');
    await waitForText(page, pane, `got2:${burst2} len:200`, { joinWrapped: true });

    const text = await paneText(page, pane);
    assert.ok(!text.includes('\uFFFD'), 'no replacement characters');
    await shot(page, '01-typing');
  });
});
