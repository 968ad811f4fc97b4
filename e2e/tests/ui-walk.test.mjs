// Defects found walking through the UI as a user would (explore-ui), each with the test that
// caught it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, paneIds, waitForPrompt, focusPane, typeInPane, waitFor, shot, layout } from '../lib/index.mjs';
import { assertTypingReaches } from './basics-b-lib.mjs';

const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a ? `${a.tagName.toLowerCase()}${a.dataset?.testid ? `[${a.dataset.testid}]` : ''}` : 'nothing';
  });

// The palette's field lies inside the palette (it overflowed its right edge by its margins).
test('command palette: the field fits inside the palette at 1280 and 700 px', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-palette-fit', async ({ page }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    for (const width of [1280, 700]) {
      await page.setViewportSize({ width, height: 760 });
      await focusPane(page, p1);
      await page.keyboard.press('Control+Shift+P');
      await page.waitForSelector('[data-testid=palette]');
      const box = await page.evaluate(() => {
        const r = (s) => document.querySelector(s).getBoundingClientRect();
        const p = r('[data-testid=palette]');
        const i = r('[data-testid=palette-input]');
        return { palette: [p.left, p.right], input: [i.left, i.right] };
      });
      assert.ok(box.input[0] >= box.palette[0] && box.input[1] <= box.palette[1], `at ${width} px the field lies inside the palette: ${JSON.stringify(box)}`);
      await shot(page, `ui-walk-palette-${width}`);
      await page.keyboard.press('Escape');
      await waitFor(async () => !(await page.isVisible('[data-testid=palette]')), { message: 'Esc closed the palette' });
    }
  });
});

// A click on a palette row that leaves it open ("Command palette") or on the list's padding put
// the focus on the page: typing went nowhere and Esc no longer closed the palette.
test('command palette: a click inside it keeps the keyboard in the field', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-palette-focus', async ({ page }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    await focusPane(page, p1);
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('[data-testid=palette]');
    await page.click('[data-testid=palette-row][data-action=palette]');
    await waitFor(async () => (await focused(page)) === 'input[palette-input]', { timeoutMs: 5000, message: async () => `the palette field keeps the keyboard (it is on ${await focused(page)})` });
    await page.keyboard.type('split right');
    await waitFor(async () => (await page.getAttribute('[data-testid=palette-row] >> nth=0', 'data-action')) === 'splitRight', { message: 'typing filters the palette' });
    // A click on the list's padding, below the last row: the same.
    const list = await page.locator('[data-testid=palette] ul').boundingBox();
    await page.mouse.click(list.x + list.width / 2, list.y + list.height - 2);
    await waitFor(async () => (await focused(page)) === 'input[palette-input]', { timeoutMs: 5000, message: async () => `the field keeps the keyboard after a click on the list (it is on ${await focused(page)})` });
    await page.keyboard.press('Escape');
    await waitFor(async () => !(await page.isVisible('[data-testid=palette]')), { message: 'Esc closed the palette' });
    await assertTypingReaches(page, p1, 'the palette closed with Esc');
    assert.deepEqual(page.errors, [], 'no console errors');
  });
});

// Opening the title editor and leaving it unchanged (Enter, a click away) made the automatic
// title a fixed one: the tab stopped following its pane's directory and program.
test('tab title editor left unchanged: the tab keeps following its pane', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-rename', async ({ page }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    const title = () => page.textContent('[data-testid=tab] >> nth=0 >> [data-testid=tab-title]');
    const auto = await title();
    for (const [how, leave] of [
      ['Enter', () => page.keyboard.press('Enter')],
      ['a click on the pane', () => page.click(`[data-pane-id="${p1}"] .xterm-screen`)],
    ]) {
      await page.dblclick('[data-testid=tab] >> nth=0');
      await page.waitForSelector('[data-testid=tab-rename]');
      assert.equal(await page.inputValue('[data-testid=tab-rename]'), auto, 'the editor starts with the automatic title');
      await leave();
      await page.waitForSelector('[data-testid=tab-rename]', { state: 'detached' });
      assert.equal((await layout(page)).tabs[0].title, '', `the automatic title stays automatic after ${how}`);
    }
    await typeInPane(page, p1, 'cd /tmp\n');
    await waitFor(async () => (await title()) === 'tmp', { message: async () => `the tab title follows cd /tmp (it is ${await title()})` });
    // A real rename still takes.
    await page.dblclick('[data-testid=tab] >> nth=0');
    await page.fill('[data-testid=tab-rename]', 'build');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await layout(page)).tabs[0].title === 'build', { message: 'the tab renamed' });
    assert.equal(await title(), 'build');
  });
});

// The empty overview said "Start one from the ▸ menu in the tab bar": there is no ▸ menu.
test('the empty Agents overview names the New agent button that exists', { timeout: 60000 }, async () => {
  await withReprise('ui-walk-overview', async ({ page }) => {
    await page.keyboard.press('Control+Shift+A');
    const text = await page.textContent('[data-testid=overview-empty]');
    const button = await page.getAttribute('[data-testid=new-agent]', 'aria-label');
    assert.ok(text.includes(button), `"${text}" names the tab bar's "${button}" button`);
    assert.ok(text.includes('Ctrl+Shift+N'), `"${text}" gives its shortcut`);
    assert.ok(!text.includes('▸'), `"${text}" points at no ▸ menu (there is none)`);
    await shot(page, 'ui-walk-overview-empty');
  });
});

// Leaving an agent's form (Esc, another agent) with a field that does not parse dropped the edit
// without a word, and so did leaving a new agent not created yet.
test('Settings → Agents: an edit that cannot be saved is kept when Settings closes, and said so', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-agent-draft', async ({ page }) => {
    const openCodex = async () => {
      await page.keyboard.press('Control+,');
      await page.click('[data-testid=agent-row][data-agent-id=codex]');
      await page.waitForSelector('[data-testid=agent-form][data-agent-id=codex]');
    };
    await openCodex();
    const resume = page.locator('[data-testid=resume-args-input]');
    assert.equal(await resume.inputValue(), 'resume');
    await resume.fill('resume "unterminated');
    await page.waitForSelector('[data-testid=resume-args-error]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=settings-view]', { state: 'detached' });
    const notice = await page.textContent('.status-notice');
    assert.match(notice, /Codex not saved \(unterminated double quote\)/, 'the status bar says the edit was not saved');
    await shot(page, 'ui-walk-agent-draft-notice');
    await openCodex();
    assert.equal(await resume.inputValue(), 'resume "unterminated', 'the edit is back in the form');
    assert.equal(await page.textContent('[data-testid=resume-args-error]'), 'unterminated double quote');
    // Fixed and left: saved.
    await resume.fill('resume --last');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=settings-view]', { state: 'detached' });
    await openCodex();
    await waitFor(async () => (await resume.inputValue()) === 'resume --last', { message: async () => `the fixed edit saved (field: ${await resume.inputValue()})` });

    // A new agent typed but not created: kept too.
    await page.click('[data-testid=add-agent]');
    await page.fill('[data-testid=agent-id-input]', 'mine');
    await page.fill('[data-testid=command-input]', 'mine-cli');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=settings-view]', { state: 'detached' });
    assert.match(await page.textContent('.status-notice'), /not saved \(not created yet\)/);
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=add-agent]');
    assert.equal(await page.inputValue('[data-testid=agent-id-input]'), 'mine');
    assert.equal(await page.inputValue('[data-testid=command-input]'), 'mine-cli');
    assert.deepEqual(page.errors, [], 'no console errors');
  });
});

// A font list with ; { } < > typed in Settings → Appearance fell back to the default font
// without a word (the field then showed the default again).
test('Settings → Appearance: a font list that cannot be used is refused with a reason', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-font', async ({ page }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    const family = () => page.evaluate((id) => window.__reprise.terminal(id).options.fontFamily, p1);
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=settings-nav-appearance]');
    const field = page.locator('[data-testid=appearance-font-family]');
    await field.fill('Liberation Mono');
    await field.press('Enter');
    await waitFor(async () => (await family()) === 'Liberation Mono', { message: async () => `the font applied (pane font: ${await family()})` });
    const hostile = '"DejaVu Sans Mono"; } * { display: none';
    await field.fill(hostile);
    await field.press('Enter');
    await page.waitForSelector('[data-testid=appearance-font-family-error]', { timeout: 5000 });
    assert.match(await page.textContent('[data-testid=appearance-font-family-error]'), /; \{ \} < or >/);
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    for (const width of [1280, 700]) {
      await page.setViewportSize({ width, height: 760 });
      await shot(page, `ui-walk-font-error-${width}`);
    }
    await field.blur();
    assert.equal(await field.inputValue(), hostile, 'the typed text stays, to be fixed');
    assert.equal(await family(), 'Liberation Mono', 'the panes keep the last good font, not the default');
  });
});

// An agent with a long label: the Settings agent list grew to its label's width and pushed the
// agent's form out of the window; in the New agent menu the label pushed "not found" out.
test('a long agent label: the Settings form and the New agent menu still fit', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-long-label', async ({ page }) => {
    const label = 'Codex ' + 'with a very long label '.repeat(12).trim();
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=agent-row][data-agent-id=codex]');
    await page.fill('[data-testid=label-input]', label);
    await page.click('[data-testid=save-agent]');
    await waitFor(async () => (await page.textContent('[data-testid=agent-row][data-agent-id=codex] .agent-row-label'))?.startsWith(label), { message: 'the long label saved' });
    const inWindow = (sel) =>
      page.evaluate((sel) => {
        const b = document.querySelector(sel).getBoundingClientRect();
        return b.width > 0 && b.left >= 0 && b.right <= window.innerWidth ? null : JSON.stringify({ left: b.left, right: b.right, width: b.width, W: window.innerWidth });
      }, sel);
    for (const width of [1280, 700]) {
      await page.setViewportSize({ width, height: 760 });
      await page.waitForFunction((w) => window.innerWidth === w, width);
      assert.equal(await inWindow('[data-testid=agent-form] [data-testid=label-input]'), null, `at ${width} px the agent's form is in the window`);
      assert.equal(await inWindow('[data-testid=agent-form] .agent-form-title h2'), null, `at ${width} px the form's title is in the window`);
      await shot(page, `ui-walk-long-label-settings-${width}`);
    }
    await page.keyboard.press('Escape');
    for (const width of [1280, 700]) {
      await page.setViewportSize({ width, height: 760 });
      await page.waitForFunction((w) => window.innerWidth === w, width);
      await page.click('[data-testid=new-agent]');
      await page.waitForSelector('[data-testid=new-agent-item][data-agent-id=codex]');
      const fit = await page.evaluate(() => {
        const menu = document.querySelector('[data-testid=new-agent-menu] .agent-choices').getBoundingClientRect();
        const badge = document.querySelector('[data-testid=new-agent-item][data-agent-id=codex] .badge').getBoundingClientRect();
        return { menu: [menu.left, menu.right], badge: [badge.left, badge.right, badge.width] };
      });
      assert.ok(fit.badge[2] > 0 && fit.badge[0] >= fit.menu[0] && fit.badge[1] <= fit.menu[1], `at ${width} px "not found" shows inside the menu: ${JSON.stringify(fit)}`);
      await shot(page, `ui-walk-long-label-menu-${width}`);
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=new-agent-menu]', { state: 'detached' });
    }
  });
});

// At 700 px a host with a long ssh destination pushed its Status and Remove out of the window,
// and an error quoting a long name ran out of its box.
test('Settings → Hosts at 700 px: a long destination and a long error stay in the window', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-hosts', async ({ page }) => {
    await page.setViewportSize({ width: 700, height: 760 });
    await page.keyboard.press('Control+,');
    await page.click('[data-testid=settings-nav-hosts]');
    const dest = 'averyveryverylongusername@' + 'sub.'.repeat(20) + 'example.com:2222';
    await page.fill('[data-testid=host-name]', 'longdest');
    await page.fill('[data-testid=host-ssh]', dest);
    await page.click('[data-testid=host-add-button]');
    await page.waitForSelector('[data-testid=host-row][data-host=longdest]');
    const right = (sel) => page.evaluate((sel) => [document.querySelector(sel).getBoundingClientRect().right, window.innerWidth], sel);
    for (const sel of ['[data-host=longdest] [data-testid=host-status]', '[data-host=longdest] [data-testid=host-remove]']) {
      const [r, w] = await right(sel);
      assert.ok(r <= w, `${sel} inside the ${w} px window (right edge ${r})`);
    }
    await page.fill('[data-testid=host-name]', 'x'.repeat(200));
    await page.fill('[data-testid=host-ssh]', 'box');
    await page.click('[data-testid=host-add-button]');
    await page.waitForSelector('[data-testid=hosts-error]');
    const err = await page.evaluate(() => {
      const e = document.querySelector('[data-testid=hosts-error]');
      return { scroll: e.scrollWidth, client: e.clientWidth, right: e.getBoundingClientRect().right, W: window.innerWidth };
    });
    assert.ok(err.scroll <= err.client && err.right <= err.W, `the error's text stays in its box: ${JSON.stringify(err)}`);
    await shot(page, 'ui-walk-hosts-700');
    await page.click('[aria-label="Remove host longdest"]');
    await page.waitForSelector('[data-testid=host-row][data-host=longdest]', { state: 'detached' });
  });
});

// A host name and destination typed in Settings → Hosts were gone when Settings was closed (Esc)
// and opened again.
test('Settings → Hosts: what is typed in the add form stays when Settings closes', { timeout: 60000 }, async () => {
  await withReprise('ui-walk-hosts-form', async ({ page }) => {
    const openHosts = async () => {
      await page.keyboard.press('Control+,');
      await page.click('[data-testid=settings-nav-hosts]');
      await page.waitForSelector('[data-testid=host-add]');
    };
    await openHosts();
    await page.fill('[data-testid=host-name]', 'devbox');
    await page.fill('[data-testid=host-ssh]', 'me@devbox.example:2222');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=settings-view]', { state: 'detached' });
    await openHosts();
    assert.equal(await page.inputValue('[data-testid=host-name]'), 'devbox');
    assert.equal(await page.inputValue('[data-testid=host-ssh]'), 'me@devbox.example:2222');
    // Added: the form empties, and stays empty on the next opening.
    await page.click('[data-testid=host-add-button]');
    await page.waitForSelector('[data-testid=host-row][data-host=devbox]');
    assert.equal(await page.inputValue('[data-testid=host-name]'), '');
    await page.keyboard.press('Escape');
    await openHosts();
    assert.equal(await page.inputValue('[data-testid=host-ssh]'), '');
    await page.click('[aria-label="Remove host devbox"]');
    await page.waitForSelector('[data-testid=host-row][data-host=devbox]', { state: 'detached' });
  });
});

// Closing the last tab (its ×) or the last shell's `exit` left a window with no tab and nothing
// in it; docs/wire.md says a fresh one opens.
test('closing the last tab, or exiting its last shell, opens a fresh tab', { timeout: 120000 }, async () => {
  await withReprise('ui-walk-last-tab', async ({ page }) => {
    const [p1] = await paneIds(page);
    await waitForPrompt(page, p1);
    await page.click('[data-testid=close-tab]');
    const fresh = async (old) => {
      const p = await waitFor(async () => {
        const ids = await paneIds(page);
        return ids.length === 1 && ids[0] !== old ? ids[0] : null;
      }, { message: async () => `one new pane after closing ${old} (panes: ${JSON.stringify(await paneIds(page))})` });
      await waitForPrompt(page, p);
      return p;
    };
    const p2 = await fresh(p1);
    await typeInPane(page, p2, 'exit\n');
    const p3 = await fresh(p2);
    await shot(page, 'ui-walk-last-tab');
    await assertTypingReaches(page, p3, 'the fresh tab after the last exit');
  });
});
