// Issue 17 (basics-b): the command palette, the pane and tab context menus, font zoom,
// Settings → Appearance applied live and kept across a reload, the search options, and file
// paths as Ctrl+click links. After every menu, the palette and Settings close, typing reaches the
// terminal (asserted with real keys). Screenshots at 1600 and 700 px, dark and light.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, waitForPrompt, waitReady, layout, treePanes, focusPane, typeInPane, waitForText, waitFor, rpc } from '../lib/index.mjs';
import { assertInsideWindow, assertTypingReaches, cellPoint, findOnScreen, shots, termOption, termSize } from './basics-b-lib.mjs';

const menuShown = (page) => page.isVisible('[data-testid=context-menu]');
const paletteShown = (page) => page.isVisible('[data-testid=palette]');

test('palette and context menus: every action with its shortcut, keyboard driven, focus back to the terminal', { timeout: 240000 }, async () => {
  await withReprise('basics-b-palette', async ({ page }) => {
    await page.setViewportSize({ width: 1600, height: 900 });
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    await focusPane(page, p1);

    // Ctrl+Shift+P from inside the terminal opens the palette; the shell gets nothing.
    await page.keyboard.press('Control+Shift+P');
    await waitFor(() => paletteShown(page), { message: 'the palette' });
    const rows = await page.$$eval('[data-testid=palette-row]', (els) => els.map((e) => [e.dataset.action, e.querySelector('kbd')?.textContent ?? '']));
    assert.ok(rows.length >= 25, `the palette lists every action (${rows.length})`);
    const keysOf = Object.fromEntries(rows);
    assert.equal(keysOf.splitRight, 'Ctrl+Shift+D');
    assert.equal(keysOf.zoomIn, 'Ctrl+=');
    assert.equal(keysOf.newAgent, 'Ctrl+Shift+N');
    assert.equal(keysOf.goToLastTab, 'Alt+9');
    await page.keyboard.type('spl dow');
    await waitFor(async () => (await page.getAttribute('[data-testid=palette-row] >> nth=0', 'data-action')) === 'splitDown', { message: 'fuzzy "spl dow" → Split down first' });
    await shots(page, 'basics-b-palette');
    // Esc closes it; the keyboard is back in the terminal, and nothing was typed into the shell.
    await page.keyboard.press('Escape');
    await waitFor(async () => !(await paletteShown(page)), { message: 'the palette closed' });
    await assertTypingReaches(page, p1, 'the palette closed with Esc');
    assert.ok(!(await page.evaluate((id) => window.__reprise.paneText(id), p1)).includes('spl dow'), 'the filter text never reached the shell');

    // Enter runs the selected action: Split right.
    await page.keyboard.press('Control+Shift+P');
    await waitFor(() => paletteShown(page), { message: 'the palette again' });
    await page.keyboard.type('split right');
    await page.keyboard.press('Enter');
    await waitFor(async () => treePanes((await layout(page)).tabs[0].root).length === 2, { message: 'the palette split the pane' });
    await waitReady(page);
    const p2 = treePanes((await layout(page)).tabs[0].root).find((p) => p !== p1);
    await waitForPrompt(page, p2);
    await assertTypingReaches(page, p2, 'the palette ran Split right');

    // Palette → Zoom in: the action runs and the keyboard goes back.
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type('zoom in');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await termOption(page, p2, 'fontSize')) === 14, { message: 'zoomed in from the palette' });
    await assertTypingReaches(page, p2, 'the palette ran Zoom in');
    await page.keyboard.press('Control+0');
    await waitFor(async () => (await termOption(page, p2, 'fontSize')) === 13, { message: 'zoom reset' });

    // The pane's context menu: right-click, every item with its shortcut, arrows + Enter.
    const openPaneMenu = async (x, y) => {
      const pt = x === undefined ? await cellPoint(page, p1, 2, 1) : { x, y };
      await page.mouse.click(pt.x, pt.y, { button: 'right' });
      await waitFor(() => menuShown(page), { message: 'the pane menu' });
    };
    await openPaneMenu();
    const items = await page.$$eval('[data-testid=menu-item]', (els) => els.map((e) => [e.dataset.action, e.querySelector('kbd')?.textContent ?? '', e.disabled]));
    assert.deepEqual(items.map((i) => i[0]), ['copy', 'paste', 'selectAll', 'search', 'clear', 'splitRight', 'splitDown', 'closePane']);
    assert.deepEqual(items.find((i) => i[0] === 'splitDown').slice(1, 2), ['Ctrl+Shift+E']);
    assert.equal(items[0][2], true, 'Copy is off with nothing selected');
    // The keyboard is in the menu, on its first enabled item (Paste).
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'paste');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'selectAll');
    await page.keyboard.press('Enter');
    await waitFor(async () => !(await menuShown(page)), { message: 'the menu closed after Enter' });
    assert.ok(await page.evaluate((id) => window.__reprise.terminal(id).hasSelection(), p1), 'Select all selected the pane');
    await openPaneMenu();
    assert.equal(await page.getAttribute('[data-action=copy]', 'aria-disabled'), null, 'with a selection, Copy is on');
    await page.keyboard.press('Escape');
    await waitFor(async () => !(await menuShown(page)), { message: 'Esc closed the menu' });
    await assertTypingReaches(page, p1, 'the pane menu closed with Esc');

    // Clear from the menu empties the pane.
    await openPaneMenu();
    await page.click('[data-testid=menu-item][data-action=clear]');
    await waitFor(async () => !(await page.evaluate((id) => window.__reprise.paneText(id), p1)).includes('echo back'), { message: 'the pane cleared' });
    await assertTypingReaches(page, p1, 'Clear from the menu');

    // Search from the menu opens the search box on that pane.
    await openPaneMenu();
    await page.click('[data-testid=menu-item][data-action=search]');
    await waitFor(() => page.isVisible(`[data-pane-id="${p1}"] [data-testid=search-box]`), { message: 'search from the menu' });
    await page.keyboard.press('Escape');
    await assertTypingReaches(page, p1, 'the search box closed');

    // Near the bottom-right corner of a 700 px window the menu still fits inside it.
    await shots(
      page,
      'basics-b-pane-menu',
      async () => {
        const vp = page.viewportSize();
        await openPaneMenu(vp.width - 10, vp.height - 30);
        await assertInsideWindow(page, '[data-testid=context-menu]', `the pane menu at ${vp.width} px`);
      },
      async () => {
        await page.keyboard.press('Escape');
        await waitFor(async () => !(await menuShown(page)), { message: 'menu closed' });
      },
    );

    // The tab's context menu.
    const openTabMenu = async () => {
      await page.click('[data-testid=tab] >> nth=0', { button: 'right' });
      await waitFor(() => menuShown(page), { message: 'the tab menu' });
    };
    await openTabMenu();
    assert.deepEqual(
      await page.$$eval('[data-testid=menu-item]', (els) => els.map((e) => e.dataset.action)),
      ['renameTab', 'newTab', 'moveTabLeft', 'moveTabRight', 'closeTab', 'closeOtherTabs'],
    );
    await page.keyboard.press('Escape');
    await waitFor(async () => !(await menuShown(page)), { message: 'tab menu closed' });
    await assertTypingReaches(page, await focusedPane(page), 'the tab menu closed with Esc');
    await shots(page, 'basics-b-tab-menu', openTabMenu, async () => {
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await menuShown(page)), { message: 'menu closed' });
    });
    // New tab from the tab menu, by keyboard.
    await openTabMenu();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'New tab from the tab menu' });
    await waitReady(page);
    const l = await layout(page);
    const p3 = treePanes(l.tabs[1].root)[0];
    await waitForPrompt(page, p3);
    await assertTypingReaches(page, p3, 'New tab from the tab menu');
  });
});

test('zoom and Settings → Appearance: live on every pane, kept across a reload', { timeout: 240000 }, async () => {
  await withReprise('basics-b-appearance', async (ctx) => {
    let page = ctx.page;
    await page.setViewportSize({ width: 1600, height: 900 });
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    await typeInPane(page, p1, 'printf "\\033[31mred\\033[0m \\033[32mgreen\\033[0m \\033[34mblue\\033[0m\\n"\n');
    await page.keyboard.press('Control+Shift+D');
    await waitFor(async () => treePanes((await layout(page)).tabs[0].root).length === 2, { message: 'split' });
    await waitReady(page);
    const p2 = treePanes((await layout(page)).tabs[0].root).find((p) => p !== p1);
    await waitForPrompt(page, p2);

    // Zoom: Ctrl+= twice from the terminal, both panes get bigger text and refit to fewer columns.
    await focusPane(page, p1);
    const before = await termSize(page, p1);
    await page.keyboard.press('Control+=');
    await page.keyboard.press('Control+=');
    for (const id of [p1, p2]) await waitFor(async () => (await termOption(page, id, 'fontSize')) === 15, { message: `pane ${id} zoomed to 15 px` });
    await waitFor(async () => (await termSize(page, p1)).cols < before.cols, { message: 'the pane refit to fewer columns' });
    await assertTypingReaches(page, p1, 'zoom');
    await shots(page, 'basics-b-zoomed');
    await page.keyboard.press('Control+-');
    await waitFor(async () => (await termOption(page, p1, 'fontSize')) === 14, { message: 'Ctrl+- zooms out one step' });

    // Settings → Appearance, changed live.
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=settings-nav-appearance]');
    await page.selectOption('[data-testid=appearance-theme]', 'solarized-dark');
    for (const id of [p1, p2]) await waitFor(async () => (await termOption(page, id, 'theme'))?.background === '#002b36', { message: `Solarized on pane ${id}` });
    await page.fill('[data-testid=appearance-font-size]', '15');
    await page.selectOption('[data-testid=appearance-cursor-style]', 'bar');
    await page.uncheck('[data-testid=appearance-cursor-blink]');
    await page.fill('[data-testid=appearance-line-height]', '1.4');
    await page.fill('[data-testid=appearance-scrollback]', '5000');
    await page.selectOption('[data-testid=appearance-renderer]', 'dom');
    await page.fill('[data-testid=appearance-font-family]', 'DejaVu Sans Mono, monospace');
    await page.press('[data-testid=appearance-font-family]', 'Enter');
    const want = { fontSize: 16, cursorStyle: 'bar', cursorBlink: false, lineHeight: 1.4, scrollback: 5000, fontFamily: 'DejaVu Sans Mono, monospace' };
    for (const id of [p1, p2]) {
      for (const [k, v] of Object.entries(want)) await waitFor(async () => (await termOption(page, id, k)) === v, { message: `${k} = ${v} on pane ${id}` });
    }
    await shots(page, 'basics-b-appearance-settings');
    await page.keyboard.press('Escape');
    await waitFor(async () => !(await page.isVisible('[data-testid=settings-view]')), { message: 'Settings closed' });
    await assertTypingReaches(page, p1, 'Settings closed with Esc');
    await shots(page, 'basics-b-appearance-applied');

    // A fixed light palette turns the chrome light even when the system is dark.
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=settings-nav-appearance]');
    await page.selectOption('[data-testid=appearance-theme]', 'one-light');
    await waitFor(async () => (await page.evaluate(() => document.documentElement.dataset.scheme)) === 'light', { message: 'light chrome' });
    const bar = await page.evaluate(() => getComputedStyle(document.querySelector('.tabbar')).backgroundColor);
    assert.equal(bar, 'rgb(248, 248, 248)', 'the tab bar takes the light colours');
    await page.keyboard.press('Escape');
    await shots(page, 'basics-b-one-light');

    // Reload: everything is still there, on a fresh page.
    await page.reload();
    await waitReady(page);
    for (const id of [p1, p2]) {
      await waitFor(async () => (await termOption(page, id, 'theme'))?.background === '#fafafa', { message: `One Light after reload on ${id}` });
      for (const [k, v] of Object.entries(want)) assert.equal(await termOption(page, id, k), v, `${k} after reload`);
    }
    assert.equal(await page.evaluate(() => document.documentElement.dataset.scheme), 'light');
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=settings-nav-appearance]');
    assert.equal(await page.inputValue('[data-testid=appearance-theme]'), 'one-light');
    assert.equal(await page.inputValue('[data-testid=appearance-font-size]'), '15');
    await page.click('[data-testid=appearance-defaults]');
    for (const id of [p1, p2]) await waitFor(async () => (await termOption(page, id, 'fontSize')) === 13, { message: `defaults on ${id}` });
    await page.keyboard.press('Escape');
    await assertTypingReaches(page, await focusedPane(page), 'Settings closed after defaults');
  });
});

test('search options and path links', { timeout: 180000 }, async () => {
  await withReprise('basics-b-search-links', async ({ page }) => {
    await page.setViewportSize({ width: 1600, height: 900 });
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    // The command line spells none of the words, so only the output matches.
    await typeInPane(page, p1, 'a=oo; echo "F$a f$a f${a}bar"\n');
    await waitForText(page, p1, /^Foo foo foobar$/m);
    await page.keyboard.press('Control+Shift+F');
    await page.keyboard.type('foo');
    const count = () => page.textContent('[data-testid=search-count]');
    await waitFor(async () => /of 3$/.test(await count()), { message: '3 matches, any case' });
    await page.click('[data-testid=search-case]');
    await waitFor(async () => /of 2$/.test(await count()), { message: '2 matches with Match case' });
    await page.click('[data-testid=search-word]');
    await waitFor(async () => (await count()) === '1 of 1', { message: '1 whole-word match' });
    await page.click('[data-testid=search-word]');
    await page.fill('[data-testid=search-box] input', 'f.o');
    await waitFor(async () => (await count()) === 'No results', { message: 'f.o is literal without regex' });
    await page.keyboard.press('Alt+R');
    await waitFor(async () => /of 2$/.test(await count()), { message: 'f.o as a regex, case-sensitive: 2' });
    assert.equal(await page.getAttribute('[data-testid=search-regex]', 'aria-pressed'), 'true');
    await page.fill('[data-testid=search-box] input', 'f(');
    await waitFor(async () => (await count()) === 'Bad pattern', { message: 'a bad regex says so' });
    await page.fill('[data-testid=search-box] input', 'f.o');
    await shots(page, 'basics-b-search-options');
    await page.keyboard.press('Escape');
    await assertTypingReaches(page, p1, 'the search box closed');

    // Paths: an absolute one, and a relative one in a tab whose shell started in /etc.
    await typeInPane(page, p1, 'clear; echo "see /etc/hosts:3 now"\n');
    await waitForText(page, p1, /^see \/etc\/hosts:3 now$/m);
    const clickPath = async (paneId, text, target) => {
      const at = await findOnScreen(page, paneId, text);
      assert.ok(at, `${text} on screen`);
      const pt = await cellPoint(page, paneId, at.col + 2, at.row);
      await page.mouse.move(pt.x, pt.y);
      // A plain click opens nothing (it focuses or selects).
      await page.mouse.click(pt.x, pt.y);
      const bar = (await page.textContent('.statusbar')) ?? '';
      assert.ok(!bar.includes(`copied ${target}`), `a plain click opens nothing (status: ${bar})`);
      await page.keyboard.down('Control');
      await page.mouse.click(pt.x, pt.y);
      await page.keyboard.up('Control');
    };
    await clickPath(p1, '/etc/hosts:3', '/etc/hosts:3');
    await waitFor(async () => ((await page.textContent('.statusbar')) ?? '').includes('copied /etc/hosts:3'), { message: 'Ctrl+click copied the path with its line' });
    await shots(page, 'basics-b-path-link');

    await rpc(page, 'layout.newTab', { cwd: '/etc' });
    await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'a tab in /etc' });
    await waitReady(page);
    const p2 = treePanes((await layout(page)).tabs[1].root)[0];
    await waitForPrompt(page, p2);
    await typeInPane(page, p2, 'echo "at ./hosts:7:2 here"\n');
    await waitForText(page, p2, /^at \.\/hosts:7:2 here$/m);
    await clickPath(p2, './hosts:7:2', '/etc/hosts:7:2');
    await waitFor(async () => ((await page.textContent('.statusbar')) ?? '').includes('copied /etc/hosts:7:2'), { message: 'the relative path resolved against the pane cwd' });
    await assertTypingReaches(page, p2, 'a path link');
  });
});

async function focusedPane(page) {
  const l = await layout(page);
  return l.tabs.find((t) => t.id === l.activeTabId).focusedPaneId;
}

