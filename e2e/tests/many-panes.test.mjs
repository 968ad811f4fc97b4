// Many panes cost nothing while they only receive output: a pane's output schedules no timer per
// line (xterm.js 6's scrollbar re-armed a fade-out timer on every line feed, shown or hidden:
// TerminalView.quietScrollbar), and a pane on another tab renders nothing while it is hidden.
// A pane draws with the widths other panes measured (TerminalView: widths.ts).
// And the page's first script holds only what a start needs: Settings (and the WebGL addon on
// the DOM renderer) are chunks of their own, fetched when first needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withReprise, openPage, paneIds, typeInPane, waitForText, waitForPrompt, waitReady, layout, treePanes, codeword, waitFor, paneSel,
} from '../lib/index.mjs';

/** Before the page's scripts: counts setTimeout calls while window.__countTimers is true. */
function countTimers() {
  const st = window.setTimeout;
  window.__timers = 0;
  window.setTimeout = function (...a) {
    if (window.__countTimers) window.__timers++;
    return st.apply(this, a);
  };
}

const LINES = 3000;

test('many panes: output schedules no timer per line; a hidden pane renders nothing', { timeout: 120000 }, async () => {
  await withReprise('many-panes', async ({ server, browser }) => {
    const u = new URL(server.url);
    u.searchParams.set('renderer', 'dom');
    const page = await openPage(browser, u.href, { initScript: countTimers });
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);

    // A visible pane printing LINES lines.
    const w = codeword('tm');
    await typeInPane(page, p1, `seq -f '${w}-%g' ${LINES}`);
    // The pointer off the terminal (the click that focused it left it there): over it, the
    // scrollbar stays shown and re-arms no timer.
    await page.mouse.move(2, 2);
    await page.evaluate(() => ((window.__timers = 0), (window.__countTimers = true)));
    await page.keyboard.press('Enter');
    await waitForText(page, p1, `${w}-${LINES}`, { timeoutMs: 30000 });
    const visible = await page.evaluate(() => ((window.__countTimers = false), window.__timers));
    assert.ok(visible < LINES / 10, `${LINES} lines in a visible pane scheduled ${visible} timers (one per line feed is the bug)`);

    // The same pane on a hidden tab: output arrives only once the other tab is shown.
    const h = codeword('hd');
    await typeInPane(page, p1, `sleep 2; seq -f '${h}-%g' ${LINES}\n`);
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'a second tab' });
    await waitReady(page);
    await waitFor(async () => !(await page.isVisible(`${paneSel(p1)} .xterm-screen`)), { message: 'tab 1 hidden' });
    const [p2] = treePanes((await layout(page)).tabs[1].root);
    await waitForPrompt(page, p2);
    await page.evaluate((id) => {
      window.__renders = 0;
      window.__renderSub = window.__reprise.terminal(id).onRender(() => window.__renders++);
      window.__timers = 0;
      window.__countTimers = true;
    }, p1);
    const text = await waitForText(page, p1, `${h}-${LINES}`, { timeoutMs: 30000 });
    const hidden = await page.evaluate(() => ((window.__countTimers = false), window.__renderSub.dispose(), { timers: window.__timers, renders: window.__renders }));
    assert.equal(text.split('\n').filter((x) => x.startsWith(`${h}-`)).length, LINES, 'every line written while hidden is in the buffer');
    assert.equal(hidden.renders, 0, 'the hidden pane rendered nothing');
    assert.ok(hidden.timers < LINES / 10, `${LINES} lines in a hidden pane scheduled ${hidden.timers} timers`);

    // Shown again, it draws what it got.
    await page.click(`[data-testid=tab][data-tab-id="${(await layout(page)).tabs[0].id}"]`);
    await waitFor(async () => page.isVisible(`${paneSel(p1)} .xterm-screen`), { message: 'tab 1 shown' });
    await waitFor(async () => (await page.textContent(`${paneSel(p1)} .xterm-rows`)).includes(`${h}-${LINES}`), { message: 'the last line drawn' });
  });
});

/** Before the page's scripts: counts xterm's glyph measurements (offsetWidth of its measure spans). */
function countMeasures() {
  const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'offsetWidth');
  window.__measures = 0;
  Object.defineProperty(HTMLElement.prototype, 'offsetWidth', {
    configurable: true,
    get() {
      if (this.classList && this.classList.contains('xterm-char-measure-element')) window.__measures++;
      return d.get.call(this);
    },
  });
}

test('many panes: a second pane drawing the same characters measures none of them again', { timeout: 60000 }, async () => {
  await withReprise('shared-widths', async ({ server, browser }) => {
    const u = new URL(server.url);
    u.searchParams.set('renderer', 'dom');
    const page = await openPage(browser, u.href, { initScript: countMeasures });
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    const line = 'The quick brown fox jumps over the lazy dog 0123456789 {}[]()<>';
    await typeInPane(page, p1, `echo '${line}'\n`);
    await waitFor(async () => (await page.textContent(`${paneSel(p1)} .xterm-rows`)).includes(line), { message: 'the line drawn in pane 1' });
    const first = await page.evaluate(() => window.__measures);
    assert.ok(first > 20, `pane 1 measured its characters (${first})`);

    await page.evaluate(() => (window.__measures = 0));
    await page.keyboard.press('Control+Shift+D');
    await waitFor(async () => (await paneIds(page)).length === 2, { message: 'a second pane' });
    await waitReady(page);
    const p2 = (await paneIds(page)).find((p) => p !== p1);
    await waitForPrompt(page, p2);
    await typeInPane(page, p2, `echo '${line}'\n`);
    await waitFor(async () => (await page.textContent(`${paneSel(p2)} .xterm-rows`)).split(line).length > 2, { message: 'the line drawn in pane 2' });
    const second = await page.evaluate(() => window.__measures);
    // At most the one glyph xterm measures inside Terminal.open ('W', for its letter spacing),
    // before the shared table is installed on the pane; before the table: 53 here.
    assert.ok(second <= 1, `pane 2 measured ${second} characters pane 1 had measured`);
  });
});

const scriptsLoaded = (page) => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.js')));

test('start-up chunks: Settings and the WebGL addon are fetched only when needed, and Settings opens', { timeout: 60000 }, async () => {
  await withReprise('lazy-chunks', async ({ server, browser }) => {
    const u = new URL(server.url);
    u.searchParams.set('renderer', 'dom');
    const page = await openPage(browser, u.href);
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    const first = await scriptsLoaded(page);
    assert.ok(!first.some((p) => /SettingsView/.test(p)), `no Settings chunk at start: ${first.join(', ')}`);
    assert.ok(!first.some((p) => /addon-webgl/.test(p)), `no WebGL chunk on the DOM renderer: ${first.join(', ')}`);

    await page.click('[data-testid=open-settings]');
    await page.locator('[data-testid=settings-view]').waitFor({ state: 'visible', timeout: 10000 });
    const after = await scriptsLoaded(page);
    assert.ok(after.some((p) => /SettingsView-[\w-]+\.js$/.test(p)), `the Settings chunk fetched when opened: ${after.join(', ')}`);
    // It works: Escape goes back to the terminals, which still take input.
    await page.keyboard.press('Escape');
    await page.locator('[data-testid=settings-view]').waitFor({ state: 'detached', timeout: 10000 });
    const w = codeword('ok');
    await typeInPane(page, p1, `echo ${w}\n`);
    await waitForText(page, p1, new RegExp(`^${w}$`, 'm'));
  });
});
