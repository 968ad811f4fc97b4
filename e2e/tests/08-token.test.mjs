// The serve credential (issue 19): after load the address bar and the history entry carry no
// token, the page holds no cookie, a reload still connects (the tab keeps its token), and a
// server on another port of 127.0.0.1 that the same browser visits gets nothing from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { withReprise, paneIds, waitForPrompt, typeInPane, waitForText, waitReady, codeword, shot } from '../lib/index.mjs';

test('the token leaves the address bar, survives a reload, and reaches no other port', { timeout: 90000 }, async () => {
  await withReprise('08-token', async (ctx) => {
    const { page, server } = ctx;
    assert.ok(server.url.includes('#token='), `serve prints the token in the fragment: ${server.url}`);
    assert.ok(!page.url().includes(server.token), `address bar after load: ${page.url()}`);
    // The entry was replaced, not pushed: back is the blank tab, forward is the tokenless address.
    await page.goBack();
    assert.equal(page.url(), 'about:blank', 'the entry before the page is the blank tab');
    await page.goForward();
    await waitReady(page);
    assert.ok(!page.url().includes(server.token), `history entry of the page: ${page.url()}`);
    assert.ok(!(await page.evaluate(() => location.href)).includes('token'), 'location has no token');
    const cookies = await page.context().cookies();
    assert.deepEqual(cookies, [], 'no cookie for 127.0.0.1');

    // A reload has no token in the address, and still connects.
    await page.reload();
    await waitReady(page);
    const [pane] = await paneIds(page);
    await waitForPrompt(page, pane);
    const word = codeword('after-reload');
    await typeInPane(page, pane, `echo ${word}\n`);
    await waitForText(page, pane, new RegExp(`^${word}$`, 'm'));
    assert.ok(!page.url().includes(server.token), 'still no token after the reload');

    // Another server on 127.0.0.1, visited in the same browser (a link opened from a pane, a
    // typed URL): every header it receives, and what its page can read, hold no token.
    const seen = [];
    const other = http.createServer((req, res) => {
      seen.push(JSON.stringify(req.headers) + req.url);
      res.setHeader('content-type', 'text/html');
      res.end('<title>other</title><p>other server</p>');
    });
    await new Promise((r) => other.listen(0, '127.0.0.1', r));
    ctx.defer(() => new Promise((r) => other.close(r)));
    const otherURL = `http://127.0.0.1:${other.address().port}/`;
    const p2 = await page.context().newPage();
    await p2.goto(otherURL);
    await p2.goto(otherURL + 'favicon.ico');
    const visible = await p2.evaluate(() => `${document.cookie}|${JSON.stringify({ ...sessionStorage })}|${JSON.stringify({ ...localStorage })}`);
    assert.ok(seen.length >= 2, 'the other server was visited');
    for (const s of seen) assert.ok(!s.includes(server.token), `the other server received the token: ${s}`);
    assert.ok(!visible.includes(server.token), `the other origin can read the token: ${visible}`);
    // The bare address (no token, a fresh tab) says what to open instead of spinning.
    const bare = await (await page.context().browser().newContext()).newPage();
    await bare.goto(server.origin + '/');
    await bare.waitForSelector('[data-testid=no-token]', { timeout: 10000 });
    await shot(bare, '08-token-bare-address');
    await shot(page, '08-token');
  });
});
