// Issue 17, the basics a terminal user expects (part a): banners push the terminal down instead
// of covering rows; tab and pane titles follow `cd` (the host's cwd, or OSC 7); the New agent
// menu, Sessions and Settings fit a 700 px window; with 17 tabs the active one and "+" stay in
// view; every popover, panel and dialog gives the keyboard back to the terminal when it closes
// (asserted by typing); links open only with Ctrl+click; tooltips go with their element; the
// first paint has the scheme's background; a failed resume's outcome and the first prompt's
// text show in Sessions, searchable; the restore panel names each pane's tab.
// Each fixed screen is saved at 700 and 1600 px, light and dark (basics-a-<screen>-<w>-<scheme>).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  withReprise,
  waitReady,
  waitFor,
  waitForText,
  waitForPrompt,
  typeInPane,
  focusPane,
  layout,
  paneSel,
  paneText,
  shot,
  rpc,
  codeword,
  killDaemon,
  fakeWorld,
  NEEDS_GO,
} from '../lib/index.mjs';

/** The screen in four shots: 700 and 1600 px wide, light and dark; the page is put back as it was. */
async function shots(page, name, { height, prepare } = {}) {
  const was = page.viewportSize();
  for (const width of [700, 1600]) {
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: height ?? was.height });
      await frames(page);
      if (prepare) await prepare();
      await shot(page, `basics-a-${name}-${width}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(was);
  await frames(page);
}

/** Two animation frames and the terminals' resize debounce, so layout and fit have run. */
const frames = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 150)))));

const rect = (page, sel) =>
  page.evaluate((s) => {
    const e = document.querySelector(s);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
  }, sel);

const rows = (page, paneId) => page.evaluate((id) => window.__reprise.terminal(id)?.rows ?? 0, paneId);

/** Types a command with real keys into whatever has the keyboard, and waits for its output in paneId. */
async function typedReaches(page, paneId, what) {
  const word = codeword('typed');
  await page.keyboard.type(`echo ${word.slice(0, 5)}''${word.slice(5)}\n`);
  await waitForText(page, paneId, new RegExp(`^${word}$`, 'm'), { timeoutMs: 10000 }).catch((e) => {
    throw new Error(`after ${what}, typing did not reach the shell: ${e.message}`);
  });
}

/** The active tab's focused pane and its terminal. */
async function firstPane(page) {
  const l = await layout(page);
  const tab = l.tabs.find((t) => t.id === l.activeTabId);
  const find = (n) => (n.type === 'pane' ? (n.id === tab.focusedPaneId ? n : null) : n.children.map(find).find(Boolean) ?? null);
  const node = find(tab.root);
  return { pane: node.id, terminal: node.terminalId };
}

test('banners push the terminal down; titles follow cd', { timeout: 120000 }, async () => {
  await withReprise('basics-a-banner', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    const { pane, terminal } = await firstPane(page);
    await waitForPrompt(page, pane);
    await typeInPane(page, pane, 'clear; seq 1 200\n');
    await waitForText(page, pane, /^200$/m);
    await frames(page);
    const before = await rows(page, pane);
    assert.ok(before > 10, `a terminal of ${before} rows`);

    // An interrupted agent's banner (the page's own store; the host never hears of it).
    const now = new Date().toISOString();
    const b = {
      terminalId: terminal, paneId: pane, agentId: 'claude', agentLabel: 'Claude Code', sessionId: 'ab12cd34-0000-4000-8000-000000000001',
      cwd: '/tmp', startedAt: now, lastEventAt: now, prompted: true, endedAt: now, endReason: 'terminal-exited', canResume: true, resumable: true, candidate: true,
    };
    await page.evaluate((x) => window.__reprise.injectBinding(x), b);
    const banner = page.locator(`${paneSel(pane)} [data-testid=resume-banner]`);
    await banner.waitFor({ state: 'visible', timeout: 5000 });
    const pushed = async (what) => {
      // The terminal refits to what the bar leaves: fewer rows, and none under the bar.
      await waitFor(async () => (await rows(page, pane)) < before, { timeoutMs: 5000, message: `the terminal to refit under the ${what} (${before} rows before)` });
      const bar = await rect(page, `${paneSel(pane)} [data-testid=${what}]`);
      const screen = await rect(page, `${paneSel(pane)} .xterm-screen`);
      const body = await rect(page, `${paneSel(pane)} .pane-body`);
      assert.ok(bar.bottom <= screen.top + 0.5, `the ${what} (bottom ${bar.bottom}) ends above the terminal's first row (top ${screen.top})`);
      assert.ok(screen.bottom <= body.bottom + 0.5, `the terminal's last row (${screen.bottom}) is inside the pane (${body.bottom})`);
    };
    await pushed('resume-banner');
    await shots(page, 'banner');
    await page.click(`${paneSel(pane)} [data-testid=dismiss-resume]`);
    await banner.waitFor({ state: 'detached', timeout: 5000 });
    await waitFor(async () => (await rows(page, pane)) === before, { timeoutMs: 5000, message: 'the rows back without the banner' });

    // A resume outcome notice (failed stays until dismissed) pushes it down too.
    await page.evaluate(
      (x) => window.__reprise.injectBinding(x),
      { ...b, endedAt: null, endReason: '', candidate: false, resumeOf: b.sessionId, outcome: 'failed', outcomeDetail: 'exit status 1: No conversation found', outcomeAt: now },
    );
    await page.locator(`${paneSel(pane)} [data-testid=resume-outcome]`).waitFor({ state: 'visible', timeout: 5000 });
    await pushed('resume-outcome');
    await shots(page, 'outcome-notice');
    await page.click(`${paneSel(pane)} [data-testid=dismiss-outcome]`);
    await waitFor(async () => (await rows(page, pane)) === before, { timeoutMs: 5000, message: 'the rows back without the notice' });
    // The agent is gone: the pane is titled after its shell again.
    await page.evaluate((x) => window.__reprise.injectBinding(x), { ...b, endedAt: now, endReason: 'detached', candidate: false, resumable: false });

    // Titles follow cd: the host's cwd (no reload), then the shell's own report (OSC 7) wins.
    const titles = () =>
      page.evaluate((id) => [
        document.querySelector(`[data-testid=pane][data-pane-id="${id}"] [data-testid=pane-title]`)?.textContent,
        document.querySelector('[data-testid=tab].active .tab-title')?.textContent,
      ], pane);
    await typeInPane(page, pane, 'clear; cd /etc\n');
    await waitFor(async () => (await titles()).every((t) => t === 'etc'), { timeoutMs: 8000, message: async () => `titles "etc" after cd /etc (have ${await titles()})` });
    await typeInPane(page, pane, "printf '\\033]7;file://elsewhere/var/l%%6Fg\\007'\n");
    await waitFor(async () => (await titles()).every((t) => t === 'log'), { timeoutMs: 5000, message: async () => `titles "log" after OSC 7 (have ${await titles()})` });
    assert.equal(await page.getAttribute(`${paneSel(pane)} [data-testid=pane-title]`, 'title'), 'log — /var/log');
    await shots(page, 'titles');
    assert.deepEqual(page.errors, [], 'no page errors');
  });
});

test('17 tabs: the active tab and "+" stay in view', { timeout: 120000 }, async () => {
  await withReprise('basics-a-tabs', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    for (let i = 0; i < 16; i++) await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 17, { message: '17 tabs' });
    await waitReady(page);
    await frames(page);
    const inView = async () => {
      const strip = await rect(page, '[role=tablist]');
      const active = await rect(page, '[data-testid=tab].active');
      const plus = await rect(page, '[data-testid=new-tab]');
      const vw = page.viewportSize().width;
      assert.ok(active.left >= strip.left - 0.5 && active.right <= strip.right + 0.5, `the active tab (${active.left}–${active.right}) inside the strip (${strip.left}–${strip.right})`);
      assert.ok(plus.left >= strip.right - 0.5 && plus.right <= vw, `"+" (${plus.left}–${plus.right}) after the strip (${strip.right}), on screen (${vw})`);
      const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid=new-tab]') !== null, { x: plus.left + plus.width / 2, y: plus.top + plus.height / 2 });
      assert.ok(hit, '"+" is not covered');
    };
    await inView();
    assert.match(await page.getAttribute('[data-testid=tab-strip]', 'class'), /more-left/, 'a fade says there are tabs to the left');
    await shots(page, 'tabs-last', { height: 500 });
    // To the first tab (wraps around): it scrolls into view, and the fade moves to the right.
    await page.keyboard.press('Control+PageDown');
    await waitFor(async () => {
      const l = await layout(page);
      return l.activeTabId === l.tabs[0].id;
    }, { message: 'the first tab active' });
    await frames(page);
    await inView();
    assert.match(await page.getAttribute('[data-testid=tab-strip]', 'class'), /more-right/);
    // A tab in the middle, by keyboard: still in view.
    for (let i = 1; i <= 9; i++) {
      await page.keyboard.press('Control+PageDown');
      await waitFor(async () => {
        const l = await layout(page);
        return l.activeTabId === l.tabs[i].id;
      }, { message: `tab ${i + 1} active` });
    }
    await frames(page);
    await inView();
    // The "+" still works with the strip full.
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 18, { message: '18 tabs' });
    await frames(page);
    await inView();
    assert.deepEqual(page.errors, [], 'no page errors');
  });
});

test('closing any popover, panel or dialog gives the keyboard back to the terminal', { timeout: 180000 }, async () => {
  await withReprise('basics-a-focus', async (ctx) => {
    const { page } = ctx;
    await page.emulateMedia({ colorScheme: 'light' });
    let { pane } = await firstPane(page);
    await waitForPrompt(page, pane);
    await focusPane(page, pane);
    await typedReaches(page, pane, 'the page loaded');

    const closes = [
      ['New agent, Esc', '[data-testid=new-agent]', '[data-testid=new-agent-menu]', () => page.keyboard.press('Escape')],
      ['New agent, Cancel', '[data-testid=new-agent]', '[data-testid=new-agent-menu]', () => page.click('[data-testid=new-agent-menu] >> text=Cancel')],
      ['Settings, Esc', '[data-testid=open-settings]', '[data-testid=settings-view]', () => page.keyboard.press('Escape')],
      ['Settings, close button', '[data-testid=open-settings]', '[data-testid=settings-view]', () => page.click('[data-testid=close-settings]')],
      ['Sessions, Esc', '[data-testid=open-sessions]', '[data-testid=sessions-view]', () => page.keyboard.press('Escape')],
      ['Sessions, close button', '[data-testid=open-sessions]', '[data-testid=sessions-view]', () => page.click('[data-testid=close-sessions]')],
      ['shortcut help, Esc', '[aria-label="Keyboard shortcuts"]', '#shortcut-help', () => page.keyboard.press('Escape')],
      ['search, Esc', () => page.keyboard.press('Control+Shift+F'), '[data-testid=search-box]', () => page.keyboard.press('Escape')],
      ['search, close button', () => page.keyboard.press('Control+Shift+F'), '[data-testid=search-box]', () => page.click('[aria-label="Close search"]')],
    ];
    for (const [what, open, sel, close] of closes) {
      if (typeof open === 'function') await open();
      else await page.click(open);
      await page.locator(sel).first().waitFor({ state: 'visible', timeout: 10000 });
      await close();
      await page.locator(sel).first().waitFor({ state: 'detached', timeout: 10000 });
      await typedReaches(page, pane, what);
    }

    // A confirm dialog, from a tab's ×, cancelled with Esc and with its button: a running
    // program keeps the pane, and what is typed reaches its terminal (echoed by the tty).
    await typeInPane(page, pane, 'clear; sleep 100\n');
    await waitFor(async () => (await page.evaluate(() => window.__reprise.terminals()))[0]?.foreground === 'sleep', { timeoutMs: 10000, message: 'sleep in front' });
    for (const [what, cancel] of [
      ['the confirm dialog, Esc', () => page.keyboard.press('Escape')],
      ['the confirm dialog, Cancel', () => page.click('[data-testid=confirm-cancel]')],
    ]) {
      await page.click('[data-testid=tab].active [data-testid=close-tab]');
      await page.locator('[data-testid=confirm-dialog]').waitFor({ state: 'visible', timeout: 10000 });
      await cancel();
      await page.locator('[data-testid=confirm-dialog]').waitFor({ state: 'detached', timeout: 10000 });
      const word = codeword('tty');
      await page.keyboard.type(word);
      await waitForText(page, pane, word, { timeoutMs: 10000 }).catch((e) => {
        throw new Error(`after ${what}, typing did not reach the terminal: ${e.message}`);
      });
    }
    await page.keyboard.press('Control+c');
    await waitForPrompt(page, pane);

    // The restore panel: the daemon dies, the host restarts it, the status bar offers the summary.
    killDaemon(ctx.home);
    const summary = page.locator('[data-testid=restore-summary]');
    await summary.waitFor({ state: 'visible', timeout: 30000 });
    await waitReady(page, { timeoutMs: 30000 });
    pane = (await firstPane(page)).pane;
    await waitForPrompt(page, pane, { timeoutMs: 20000 });
    await focusPane(page, pane);
    for (const [what, close] of [
      ['the restore panel, Esc', () => page.keyboard.press('Escape')],
      ['the restore panel, its close button', () => page.click('[data-testid=restore-panel-close]')],
    ]) {
      await summary.click();
      await page.locator('[data-testid=restore-panel]').waitFor({ state: 'visible', timeout: 5000 });
      // Each line names its pane's tab.
      const header = await page.textContent(`${paneSel(pane)} [data-testid=pane-title]`);
      assert.deepEqual(await page.locator('[data-testid=restore-where]').allTextContents(), [`Tab 1 · ${header}`]);
      if (what.endsWith('Esc')) await shots(page, 'restore-panel');
      await close();
      await page.locator('[data-testid=restore-panel]').waitFor({ state: 'detached', timeout: 5000 });
      await typedReaches(page, pane, what);
      // A space typed now is the shell's, not the summary button's: the panel stays shut.
      assert.equal(await page.locator('[data-testid=restore-panel]').count(), 0);
    }
    await summary.click();
    await page.click('[data-testid=restore-panel-dismiss]');
    await summary.waitFor({ state: 'detached', timeout: 5000 });
    await typedReaches(page, pane, 'the restore summary dismissed');
    assert.deepEqual(page.errors, [], 'no page errors');
  });
});

test('links open only with Ctrl+click; tooltips go with their button; the first paint has the scheme', { timeout: 120000 }, async () => {
  await withReprise('basics-a-links', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    const { pane } = await firstPane(page);
    await waitForPrompt(page, pane);
    // Opening a link is recorded instead (platform.ts opens with window.open in a browser).
    await page.evaluate(() => {
      window.__opened = [];
      window.open = (u) => (window.__opened.push(String(u)), null);
    });
    const url = `https://example.com/${codeword('link')}`;
    await typeInPane(page, pane, `clear; echo ${url}\n`);
    await waitForText(page, pane, new RegExp(`^${url}$`, 'm'));
    // The link's cell on screen: the output row's first column.
    const at = await page.evaluate(({ id, url }) => {
      const t = window.__reprise.terminal(id);
      const buf = t.buffer.active;
      let row = -1;
      for (let i = buf.viewportY; i < buf.viewportY + t.rows; i++) if (buf.getLine(i)?.translateToString(true) === url) row = i - buf.viewportY;
      const screen = document.querySelector(`[data-testid=pane][data-pane-id="${id}"] .xterm-screen`).getBoundingClientRect();
      const cw = screen.width / t.cols;
      const ch = screen.height / t.rows;
      return { x: screen.left + cw * 4.5, y: screen.top + ch * (row + 0.5), row };
    }, { id: pane, url });
    assert.ok(at.row >= 0, 'the URL is on screen');
    await page.mouse.move(at.x - 2, at.y);
    await page.mouse.move(at.x, at.y);
    const hint = page.locator(`${paneSel(pane)} [data-testid=link-tooltip]`);
    await hint.waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await hint.textContent(), 'Ctrl+click to open');
    // A resize re-renders the terminal (and ends the hover): hover again for each shot.
    await shots(page, 'link-hint', {
      prepare: async () => {
        await page.mouse.move(at.x, at.y + 200);
        await page.mouse.move(at.x, at.y);
        await hint.waitFor({ state: 'visible', timeout: 5000 });
      },
    });
    await page.mouse.move(at.x - 2, at.y);
    await page.mouse.move(at.x, at.y);
    await page.mouse.click(at.x, at.y);
    await frames(page);
    assert.deepEqual(await page.evaluate(() => window.__opened), [], 'a plain click opens nothing');
    await page.mouse.move(at.x, at.y + 200);
    await page.mouse.move(at.x, at.y);
    await hint.waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.down('Control');
    await page.mouse.click(at.x, at.y);
    await page.keyboard.up('Control');
    await waitFor(async () => (await page.evaluate(() => window.__opened)).length === 1, { timeoutMs: 5000, message: 'Ctrl+click opens the link' });
    assert.deepEqual(await page.evaluate(() => window.__opened), [url]);

    // A tooltip goes with its button: hover a tab's ×, then close the tab with it.
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'a second tab' });
    await waitReady(page);
    const close = page.locator('[data-testid=tab].active [data-testid=close-tab]');
    await close.hover();
    const tip = page.locator('[data-testid=tooltip]');
    await tip.waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await tip.textContent(), 'Close tab');
    assert.equal(await close.getAttribute('title'), null, 'no native tooltip while ours shows');
    await shots(page, 'tooltip');
    // shots() moved nothing: the pointer is still over the ×, the tooltip still up.
    await tip.waitFor({ state: 'visible', timeout: 5000 });
    await close.click();
    await waitFor(async () => (await layout(page)).tabs.length === 1, { message: 'the tab closed' });
    await tip.waitFor({ state: 'detached', timeout: 2000 });
    await frames(page);
    assert.equal(await page.locator('[role=tooltip]').count(), 0, 'no tooltip left behind');
    // Leaving gives the title back.
    await page.mouse.move(300, 300);
    await page.locator('[data-testid=new-tab]').hover();
    await page.mouse.move(300, 300);
    assert.equal(await page.getAttribute('[data-testid=new-tab]', 'title'), 'New tab (Ctrl+Shift+T) — right-click: New tab on host…');

    // Before the stylesheet and the bundle arrive, the page already has the scheme's background.
    for (const [scheme, want] of [['light', 'rgb(243, 243, 243)'], ['dark', 'rgb(24, 24, 24)']]) {
      const bare = await page.context().newPage();
      await bare.emulateMedia({ colorScheme: scheme });
      await bare.route(/\/assets\//, (r) => r.abort());
      await bare.goto(page.url());
      assert.equal(await bare.evaluate(() => getComputedStyle(document.documentElement).backgroundColor), want, `${scheme}: the first paint's background`);
      await shot(bare, `basics-a-first-paint-${scheme}`);
      await bare.close();
    }
    assert.deepEqual(page.errors, [], 'no page errors');
  });
});

function findFile(dir, name) {
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) {
      const r = findFile(p, name);
      if (r) return r;
    } else if (e === name) return p;
  }
  return null;
}

test('700 px: New agent, Sessions and Settings fit; Sessions shows the first prompt and a failed resume', { timeout: 240000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rbae2e.' });
  try {
    await withReprise('basics-a-narrow', async ({ page }) => {
      await page.emulateMedia({ colorScheme: 'light' });
      // A conversation that says goodbye, whose transcript then goes: resuming it fails.
      const word = codeword('heron');
      const prompt = `remember ${word} and explain why the narrow window needs cards`;
      const run = await rpc(page, 'agents.run', { agent: 'claude', prompt, cwd: world.work });
      await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'the agent in a new tab' });
      await waitReady(page);
      await waitForText(page, run.paneId, `ack: remember ${word}`, { timeoutMs: 20000 });
      const sessionId = await waitFor(async () => {
        const b = (await page.evaluate(() => window.__reprise.bindings()))[run.terminalId];
        return b?.prompted && b.sessionId;
      }, { timeoutMs: 15000, message: 'a prompted session' });
      await typeInPane(page, run.paneId, '/exit\n');
      await waitFor(async () => (await page.evaluate(() => window.__reprise.bindings()))[run.terminalId]?.endReason === 'detached', { timeoutMs: 15000, message: 'detached' });
      rmSync(findFile(path.join(world.home, '.claude'), `${sessionId}.jsonl`));
      await page.click('[data-testid=open-sessions]');
      const row = page.locator(`[data-testid=session-row][data-session-id="${sessionId}"]`);
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await row.locator('[data-testid=resume-new-tab]').click();
      await waitFor(async () => (await layout(page)).tabs.length === 3, { message: 'the resume in a new tab' });
      const failedPane = (await layout(page)).tabs[2].root.id;
      await page.locator(`${paneSel(failedPane)} [data-testid=resume-outcome][data-outcome=failed]`).waitFor({ state: 'visible', timeout: 20000 });

      // New agent at 700 px, its button pushed right by tabs: all of it on screen.
      await page.setViewportSize({ width: 700, height: 460 });
      for (let i = 0; i < 3; i++) await page.click('[data-testid=new-tab]');
      await waitFor(async () => (await layout(page)).tabs.length === 6, { message: '6 tabs' });
      await page.click('[data-testid=new-agent]');
      await page.waitForSelector('[data-testid=new-agent-item]');
      await frames(page);
      for (const sel of ['[data-testid=new-agent-menu]', '[data-testid=run-agent]', '[data-testid=new-agent-menu] >> text=Cancel', '[data-testid=new-agent-prompt]']) {
        const r = await page.locator(sel).boundingBox();
        assert.ok(r && r.x >= 0 && r.y >= 0 && r.x + r.width <= 700 && r.y + r.height <= 460, `${sel} on screen at 700×460: ${JSON.stringify(r)}`);
      }
      const hit = await page.evaluate(() => {
        const b = document.querySelector('[data-testid=run-agent]').getBoundingClientRect();
        return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2)?.closest('[data-testid=run-agent]') !== null;
      });
      assert.ok(hit, 'Run can be clicked');
      await shots(page, 'new-agent', { height: 460 });
      await page.keyboard.press('Escape');

      // Sessions at 700 px: no horizontal scroll, the actions and the failed outcome on screen.
      await page.setViewportSize({ width: 700, height: 600 });
      await page.click('[data-testid=open-sessions]');
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await waitFor(async () => (await row.locator('[data-testid=session-outcome]').textContent().catch(() => '')) === 'failed', { message: 'the failed outcome in the row' });
      const detail = row.locator('[data-testid=session-outcome-detail]');
      assert.match(await detail.textContent(), /No conversation found/);
      const fits = async (width) => {
        const over = await page.evaluate(() => {
          const s = document.querySelector('.sessions-scroll');
          return s.scrollWidth - s.clientWidth;
        });
        assert.ok(over <= 0, `Sessions scrolls sideways by ${over} px at ${width} px`);
        for (const sel of ['[data-testid=session-outcome]', '[data-testid=session-outcome-detail]', '[data-testid=resume-new-tab]', '[data-testid=forget-session]', '[data-testid=session-prompt]']) {
          const r = await row.locator(sel).boundingBox();
          assert.ok(r && r.x >= 0 && r.x + r.width <= width + 0.5 && r.width > 0, `${sel} on screen at ${width} px: ${JSON.stringify(r)}`);
        }
      };
      await fits(700);
      // The first prompt's text tells conversations apart, and the search goes over it.
      assert.match(await row.locator('[data-testid=session-prompt]').innerText(), new RegExp(`remember ${word} and explain`));
      await page.fill('[data-testid=sessions-query]', 'narrow window needs');
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await shots(page, 'sessions');
      await page.setViewportSize({ width: 1600, height: 600 });
      await fits(1600);
      await page.fill('[data-testid=sessions-query]', 'wide window zzz');
      await page.waitForSelector('[data-testid=sessions-empty]', { timeout: 10000 });
      await page.fill('[data-testid=sessions-query]', '');
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await page.keyboard.press('Escape');

      // Settings at 700 px: the agent form gets the width.
      await page.setViewportSize({ width: 700, height: 600 });
      await page.click('[data-testid=open-settings]');
      await page.locator('[data-testid=agent-row]').first().waitFor({ state: 'visible', timeout: 10000 });
      await frames(page);
      const form = await rect(page, '.agent-detail');
      assert.ok(form.width >= 600, `the agent form is ${form.width} px wide in a 700 px window`);
      const label = await page.locator('.agent-detail input').first().boundingBox();
      assert.ok(label.width >= 400, `its fields are ${label.width} px wide`);
      await shots(page, 'settings');
      await page.keyboard.press('Escape');
      assert.deepEqual(page.errors, [], 'no page errors');
    });
  } finally {
    world.done();
  }
});
