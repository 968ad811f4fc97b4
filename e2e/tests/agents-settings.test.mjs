// Settings → Agents: the builtins are listed; an edited Resume args value is saved (on blur) and
// survives a reload; a value that does not parse as shell words shows an inline error and is not
// saved; Restore default brings the builtin back; Esc closes the view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, waitReady, shot, waitFor } from '../lib/index.mjs';

const row = (id) => `[data-testid=agent-row][data-agent-id="${id}"]`;
const form = (id) => `[data-testid=agent-form][data-agent-id="${id}"]`;

async function openSettings(page, how = 'button') {
  if (how === 'button') await page.click('[data-testid=open-settings]');
  else await page.keyboard.press('Control+Comma');
  await page.waitForSelector('[data-testid=settings-view]', { timeout: 10000 });
  await page.waitForSelector('[data-testid=agent-row]', { timeout: 10000 });
}

async function selectAgent(page, id) {
  await page.click(row(id));
  await page.waitForSelector(form(id), { timeout: 10000 });
}

test('agents settings: edit resume args, it sticks; bad words show an inline error', { timeout: 120000 }, async () => {
  await withReprise('agents-settings', async ({ page }) => {
    await openSettings(page);

    // Every builtin is listed, each with a PATH badge.
    const rows = await page.$$eval('[data-testid=agent-row]', (els) =>
      els.map((e) => ({ id: e.getAttribute('data-agent-id'), badge: e.querySelector('[data-testid=agent-found]')?.textContent })),
    );
    const ids = rows.map((r) => r.id);
    for (const id of ['claude', 'codex', 'gemini', 'amp', 'opencode']) assert.ok(ids.includes(id), `${id} is listed (got ${ids.join(', ')})`);
    for (const r of rows) assert.match(r.badge ?? '', /^(found on PATH|not found)$/, `${r.id} has a PATH badge`);

    // The Resume args hint says what the field means.
    await selectAgent(page, 'codex');
    const hint = await page.textContent(`${form('codex')} #agent-resume-args-hint`);
    assert.equal(hint, "The session id is appended after these, e.g. --resume. Leave empty if the agent can't resume by id.");
    assert.equal(await page.inputValue('[data-testid=resume-args-input]'), 'resume', 'codex resumes with the resume subcommand');
    assert.equal(await page.isVisible('[data-testid=restore-default]'), false, 'an untouched builtin has nothing to restore');

    // Edit, leave the field: saved.
    await page.fill('[data-testid=resume-args-input]', 'resume --all');
    await page.press('[data-testid=resume-args-input]', 'Tab');
    await page.waitForSelector('[data-testid=saved-status]:has-text("Saved")', { timeout: 10000 });
    assert.equal(await page.getAttribute('[data-testid=saved-status]', 'role'), 'status');

    // Reload: the value stuck, and the builtin now offers Restore default.
    await page.reload();
    await waitReady(page);
    await page.click('.xterm-screen'); // keyboard in a terminal: Ctrl+, is taken from it
    await openSettings(page, 'keyboard');
    await selectAgent(page, 'codex');
    assert.equal(await page.inputValue('[data-testid=resume-args-input]'), 'resume --all', 'the edit survived a reload');
    await page.waitForSelector('[data-testid=restore-default]', { timeout: 10000 });

    // A value that does not parse: inline error, Save disabled, nothing saved.
    await page.fill('[data-testid=resume-args-input]', '"unterminated');
    const err = page.locator('[data-testid=resume-args-error]');
    await err.waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await err.textContent(), 'unterminated double quote');
    assert.equal(await err.getAttribute('role'), 'alert');
    assert.equal(await page.isDisabled('[data-testid=save-agent]'), true, 'Save is disabled while a field does not parse');
    await page.press('[data-testid=resume-args-input]', 'Tab'); // blur must not save it
    await page.locator('[data-testid=resume-args-input]').scrollIntoViewIfNeeded();
    await shot(page, 'agents-settings-parse-error');

    await page.reload();
    await waitReady(page);
    await openSettings(page);
    await selectAgent(page, 'codex');
    assert.equal(await page.inputValue('[data-testid=resume-args-input]'), 'resume --all', 'the bad value was not saved');

    // Other quoting the host accepts goes through the explicit Save button.
    await page.fill('[data-testid=resume-args-input]', `resume "--all" '--x y'`);
    await page.click('[data-testid=save-agent]');
    await page.waitForSelector('[data-testid=saved-status]:has-text("Saved")', { timeout: 10000 });
    await page.reload();
    await waitReady(page);
    await openSettings(page);
    await selectAgent(page, 'codex');
    assert.equal(await page.inputValue('[data-testid=resume-args-input]'), `resume --all '--x y'`, 'three words, shown re-quoted');

    // Restore default.
    await page.click('[data-testid=restore-default]');
    await waitFor(async () => (await page.inputValue('[data-testid=resume-args-input]')) === 'resume', { message: 'the default resume args back' });
    await page.waitForSelector('[data-testid=restore-default]', { state: 'detached', timeout: 10000 });
    await shot(page, 'agents-settings');

    // Esc closes Settings; the terminals are still there.
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=settings-view]', { state: 'detached', timeout: 10000 });
    assert.ok(await page.isVisible('[data-testid=pane] .xterm-screen'));

    assert.deepEqual(page.errors, [], 'no page errors');
  });
});
