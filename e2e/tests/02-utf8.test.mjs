// UTF-8 split across chunk boundaries renders whole: no U+FFFD, the characters are there.
// (This machine has no CJK or emoji font, so the screenshot shows boxes for those; the
// assertions read xterm's buffer.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, typeInPane, waitForText, waitForPrompt, paneText, shot, codeword } from '../lib/index.mjs';

const count = (s, sub) => s.split(sub).length - 1;

test('UTF-8: CJK, emoji and combining marks split across writes render whole', { timeout: 90000 }, async () => {
  await withReprise('02-utf8', async ({ page }) => {
    const [pane] = await paneIds(page);
    await waitForPrompt(page, pane);
    const tag = codeword('u8');

    // A 26 KB stream of 3-byte, 4-byte and combining characters: pty reads (~4 KB) and frames
    // cut it at arbitrary places.
    const n = 2000;
    await typeInPane(page, pane, `printf '\\xed\\x95\\x9c\\xf0\\x9f\\x8e\\x89u\\xcc\\x88%.0s' $(seq ${n}); echo; echo END''${tag}\n`);
    await waitForText(page, pane, new RegExp(`^END${tag}$`, 'm'), { timeoutMs: 20000 });
    const text = (await paneText(page, pane)).replace(/\n/g, '');
    assert.equal(count(text, '\uFFFD'), 0, 'no U+FFFD replacement characters');
    assert.equal(count(text, '한'), n, 'every 한 arrived whole');
    assert.equal(count(text, '🎉'), n, 'every 🎉 arrived whole');
    assert.equal(count(text, 'u\u0308'), n, 'every u + combining diaeresis arrived whole');

    await typeInPane(page, pane, 'clear\n');
    await waitForText(page, pane, (t) => !t.includes('🎉'));

    // Each multi-byte character is written in pieces, with a pause between the pieces, so the
    // pieces leave the pty in separate reads (and separate frames). The command line is ASCII.
    const pieces = [
      `${tag}[`,
      '\\xe4', '\\xb8\\xad', // 中 = e4 b8 ad
      '\\xe6\\x96', '\\x87', // 文 = e6 96 87
      '\\xf0', '\\x9f', '\\x98\\x80', // 😀 = f0 9f 98 80
      'e\\xcc', '\\x81', // e + U+0301 (combining acute)
      '\\xed\\x95', '\\x9c', // 한 = ed 95 9c
      'n', '\\xcc\\x83', // n + U+0303 (combining tilde)
      ']\\n',
    ];
    const cmd = pieces.map((p) => `printf '${p}'`).join('; sleep 0.05; ');
    await typeInPane(page, pane, `${cmd}\n`);
    const expected = `${tag}[中文😀e\u0301한n\u0303]`;
    await waitForText(page, pane, new RegExp(`^${expected.replace(/[[\]]/g, '\\$&')}$`, 'm'));
    assert.equal(count(await paneText(page, pane), '\uFFFD'), 0, 'no U+FFFD replacement characters');
    await shot(page, '02-utf8');
  });
});
