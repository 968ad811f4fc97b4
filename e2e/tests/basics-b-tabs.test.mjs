// Issue 17 (basics-b): tabs renamed (double-click, the tab menu; Enter keeps, Esc cancels) and
// reordered (drag, Ctrl+Shift+PageUp/PageDown), Alt+1…9 and Ctrl+PageUp/PageDown jumps that never
// reach the shell (Alt+digit used to arrive in bash as "(arg: 2)"), New agent on Ctrl+Shift+N;
// names and order kept across a reload and a restart of serve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, waitForPrompt, waitReady, layout, treePanes, focusPane, waitFor, paneText, waitForText, shot, NEEDS_GO, fakeWorld } from '../lib/index.mjs';
import { assertTypingReaches, shots } from './basics-b-lib.mjs';

const order = async (page) => (await layout(page)).tabs.map((t) => t.id);
const titles = async (page) => page.$$eval('[data-testid=tab] [data-testid=tab-title]', (els) => els.map((e) => e.textContent));
const activeIndex = async (page) => {
  const l = await layout(page);
  return l.tabs.findIndex((t) => t.id === l.activeTabId);
};
const focusedPane = async (page) => {
  const l = await layout(page);
  return l.tabs.find((t) => t.id === l.activeTabId).focusedPaneId;
};

test('tabs: rename, reorder, jumps; kept across a reload and a serve restart', { timeout: 240000 }, async () => {
  await withReprise(
    'basics-b-tabs',
    async (ctx) => {
      let page = ctx.page;
      await page.setViewportSize({ width: 1600, height: 900 });
      await waitForPrompt(page, await focusedPane(page));
      for (let i = 0; i < 2; i++) {
        await focusPane(page, await focusedPane(page));
        await page.keyboard.press('Control+Shift+T');
        await waitFor(async () => (await layout(page)).tabs.length === i + 2, { message: `tab ${i + 2}` });
        await waitReady(page);
        await waitForPrompt(page, await focusedPane(page));
      }
      const [t1, t2, t3] = await order(page);

      // Alt+digit jumps, and the shell never sees it (bash would print "(arg: 1)").
      await focusPane(page, await focusedPane(page));
      await page.keyboard.press('Alt+1');
      await waitFor(async () => (await activeIndex(page)) === 0, { message: 'Alt+1 → tab 1' });
      await assertTypingReaches(page, await focusedPane(page), 'Alt+1');
      await page.keyboard.press('Alt+9');
      await waitFor(async () => (await activeIndex(page)) === 2, { message: 'Alt+9 → the last tab' });
      await page.keyboard.press('Alt+2');
      await waitFor(async () => (await activeIndex(page)) === 1, { message: 'Alt+2 → tab 2' });
      await page.keyboard.press('Control+PageDown');
      await waitFor(async () => (await activeIndex(page)) === 2, { message: 'Ctrl+PageDown → next' });
      await page.keyboard.press('Control+PageUp');
      await waitFor(async () => (await activeIndex(page)) === 1, { message: 'Ctrl+PageUp → previous' });
      await assertTypingReaches(page, await focusedPane(page), 'the tab jumps');
      for (const t of (await layout(page)).tabs) {
        const text = (await paneText(page, treePanes(t.root)[0])) ?? '';
        assert.ok(!text.includes('(arg:'), `no Alt+digit reached the shell of ${t.id}:\n${text}`);
      }

      // Rename by double-click: Enter keeps it.
      // Low on the tab, below the title's line of text (the real window's xdotool test found that miss).
      const tb = await page.locator(`[data-testid=tab][data-tab-id="${t1}"]`).boundingBox();
      await page.dblclick(`[data-testid=tab][data-tab-id="${t1}"]`, { position: { x: 16, y: tb.height - 4 } });
      await waitFor(() => page.isVisible('[data-testid=tab-rename]'), { message: 'the title editor' });
      await shots(page, 'basics-b-tab-renaming');
      await page.keyboard.press('Control+a');
      await page.keyboard.type('build');
      await page.keyboard.press('Enter');
      await waitFor(async () => (await layout(page)).tabs[0].title === 'build', { message: 'the host has the title' });
      assert.equal((await titles(page))[0], 'build');
      await assertTypingReaches(page, await focusedPane(page), 'the rename (Enter)');

      // Rename from the tab menu; Esc cancels, then Enter keeps.
      const renameFromMenu = async (tabId) => {
        await page.click(`[data-testid=tab][data-tab-id="${tabId}"]`, { button: 'right' });
        await page.click('[data-testid=menu-item][data-action=renameTab]');
        await waitFor(() => page.isVisible('[data-testid=tab-rename]'), { message: 'the title editor from the menu' });
        assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tab-rename', 'the editor has the keyboard');
      };
      await renameFromMenu(t2);
      await page.keyboard.type('nope');
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await page.isVisible('[data-testid=tab-rename]')), { message: 'Esc closed the editor' });
      assert.equal((await layout(page)).tabs[1].title, '', 'Esc kept the old (automatic) title');
      await assertTypingReaches(page, await focusedPane(page), 'the rename (Esc)');
      await renameFromMenu(t2);
      await page.keyboard.press('Control+a');
      await page.keyboard.type('logs');
      await page.keyboard.press('Enter');
      await waitFor(async () => (await layout(page)).tabs[1].title === 'logs', { message: 'tab 2 is "logs"' });

      // Drag "build" past the third tab: the order is t2, t3, t1.
      const box = async (id) => page.locator(`[data-testid=tab][data-tab-id="${id}"]`).boundingBox();
      const a = await box(t1);
      const c = await box(t3);
      await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
      await page.mouse.down();
      for (let x = a.x + a.width / 2; x <= c.x + c.width * 0.9; x += 20) await page.mouse.move(x, a.y + a.height / 2);
      await shots(page, 'basics-b-tab-dragging');
      await page.mouse.up();
      await waitFor(async () => (await order(page)).join() === [t2, t3, t1].join(), { message: 'dragged to the end' });
      assert.deepEqual(await titles(page), ['logs', (await titles(page))[1], 'build']);

      // Keyboard: Ctrl+Shift+PageUp moves the active tab left.
      await page.click(`[data-testid=tab][data-tab-id="${t1}"]`);
      await waitFor(async () => (await layout(page)).activeTabId === t1, { message: 'build active' });
      await focusPane(page, await focusedPane(page));
      await page.keyboard.press('Control+Shift+PageUp');
      await waitFor(async () => (await order(page)).join() === [t2, t1, t3].join(), { message: 'Ctrl+Shift+PageUp moved it left' });
      await page.keyboard.press('Control+Shift+PageDown');
      await waitFor(async () => (await order(page)).join() === [t2, t3, t1].join(), { message: 'Ctrl+Shift+PageDown moved it back' });
      await assertTypingReaches(page, await focusedPane(page), 'moving the tab');
      await shots(page, 'basics-b-tabs-renamed');

      // Reload, then restart serve: same order, same names.
      await page.reload();
      await waitReady(page);
      assert.deepEqual(await order(page), [t2, t3, t1]);
      assert.deepEqual([(await titles(page))[0], (await titles(page))[2]], ['logs', 'build']);
      const server = await ctx.restartServe();
      page = await ctx.newPage(server.url);
      await page.setViewportSize({ width: 1600, height: 900 });
      assert.deepEqual(await order(page), [t2, t3, t1], 'the order after a restart');
      const l = await layout(page);
      assert.deepEqual(l.tabs.map((t) => t.title), ['logs', '', 'build'], 'the names after a restart');
      assert.deepEqual([(await titles(page))[0], (await titles(page))[2]], ['logs', 'build']);
      await shots(page, 'basics-b-tabs-after-restart');

      // Clearing a name gives the tab back its automatic title.
      await page.dblclick(`[data-testid=tab][data-tab-id="${t1}"] [data-testid=tab-title]`);
      await page.keyboard.press('Control+a');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Enter');
      await waitFor(async () => (await layout(page)).tabs[2].title === '', { message: 'the name cleared' });
      assert.notEqual((await titles(page))[2], 'build');

      // Ctrl+Shift+N opens New agent; Esc closes it and the keyboard is back in the terminal.
      await focusPane(page, await focusedPane(page));
      await page.keyboard.press('Control+Shift+N');
      await waitFor(() => page.isVisible('[data-testid=new-agent-menu]'), { message: 'New agent from Ctrl+Shift+N' });
      assert.ok(await page.isVisible('[data-testid=new-agent-where-right]'), 'it offers a split');
      await shots(page, 'basics-b-new-agent', async () => {
        if (!(await page.isVisible('[data-testid=new-agent-menu]'))) {
          await focusPane(page, await focusedPane(page));
          await page.keyboard.press('Control+Shift+N');
          await waitFor(() => page.isVisible('[data-testid=new-agent-menu]'), { message: 'New agent again' });
        }
      });
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await page.isVisible('[data-testid=new-agent-menu]')), { message: 'New agent closed' });
      await assertTypingReaches(page, await focusedPane(page), 'New agent closed with Esc');
    },
    { pinToken: true },
  );
});

test('New agent: Ctrl+Shift+N, start it in a split, Enter on the agent runs it', { timeout: 180000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rbb.' });
  try {
    await withReprise('basics-b-new-agent-split', async ({ page }) => {
      await page.setViewportSize({ width: 1600, height: 900 });
      const p1 = await focusedPane(page);
      await waitForPrompt(page, p1);
      await focusPane(page, p1);
      await page.keyboard.press('Control+Shift+N');
      await waitFor(() => page.isVisible('[data-testid=new-agent-item][data-agent-id=claude][aria-checked=true]'), { message: 'the fake Claude is found and chosen' });
      await page.check('[data-testid=new-agent-where-right]');
      await page.fill('[data-testid=new-agent-prompt]', 'hello split');
      await page.focus('[data-testid=new-agent-item][data-agent-id=claude]');
      await page.keyboard.press('Enter');
      await waitFor(async () => !(await page.isVisible('[data-testid=new-agent-menu]')), { message: 'the popover closed after Enter' });
      await waitFor(async () => treePanes((await layout(page)).tabs[0].root).length === 2, { message: 'the agent got a split of this tab' });
      const l = await layout(page);
      assert.equal(l.tabs.length, 1, 'no new tab');
      assert.equal(l.tabs[0].root.direction, 'row', 'split right');
      const p2 = treePanes(l.tabs[0].root).find((p) => p !== p1);
      await waitReady(page);
      await waitForText(page, p2, 'ack: hello split', { timeoutMs: 20000 });
      await shot(page, 'basics-b-new-agent-split');
    });
  } finally {
    world.done();
  }
});
