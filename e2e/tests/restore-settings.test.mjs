// The rest of the restore UI against a real serve:
// - Settings → Sessions & privacy: checkboxes and day counts saved on change ("Saved"), bad day
//   counts refused inline and never sent, values kept across a reload.
// - The pane's outcome notice for each outcome the host can record (bindings injected into the
//   page, as the host would push them): text, role, dismiss, "Open Sessions", and the resume
//   banner taking precedence.
// - Sessions: a resumed session's last outcome, and Forget (asks first, then the row is gone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withReprise, waitReady, waitForText, waitForPrompt, layout, paneIds, paneSel, shot, codeword, waitFor, typeInPane, rpc, NEEDS_GO, fakeWorld } from '../lib/index.mjs';


const setting = async (page, key) => (await rpc(page, 'settings.get', { key })).value;
const statusText = (page, id) => page.textContent(`[data-testid=${id}-status]`);

async function openPrivacy(page) {
  await page.click('[data-testid=open-settings]');
  await page.click('[data-testid=settings-nav-privacy]');
  await page.locator('[data-testid=privacy-settings]').waitFor({ state: 'visible', timeout: 5000 });
  await waitFor(() => page.locator('[data-testid=sessions-retention-days]').isEnabled(), { message: 'settings loaded' });
}

test('Sessions & privacy: saved on change, bad values refused inline, kept across a reload', { timeout: 120000 }, async () => {
  await withReprise('restore-settings', async ({ page }) => {
    await openPrivacy(page);
    assert.equal(await page.locator('[data-testid=continue-after-restart]').isChecked(), false, 'continue after restarts: off by default');
    assert.equal(await page.locator('[data-testid=scrollback-persist]').isChecked(), true, 'keep output on disk: on by default');
    assert.equal(await page.inputValue('[data-testid=sessions-retention-days]'), '0');
    assert.equal(await page.textContent('[data-testid=sessions-retention-days-meaning]'), 'Kept forever.');
    // Accessible names.
    assert.equal(await page.getByRole('checkbox', { name: 'Keep terminal output on disk' }).count(), 1);
    assert.equal(await page.getByRole('textbox', { name: 'Keep agent sessions for' }).count(), 1);
    assert.equal(await page.getByRole('textbox', { name: 'Keep scrollback of closed terminals for' }).count(), 1);

    // A checkbox saves at once.
    await page.locator('[data-testid=scrollback-persist]').uncheck();
    await waitFor(async () => (await statusText(page, 'scrollback-persist')) === 'Saved', { message: '"Saved" for scrollback.persist' });
    assert.equal(await setting(page, 'scrollback.persist'), 'false');

    // Bad day counts: an inline error, aria-invalid, nothing sent.
    const days = page.locator('[data-testid=sessions-retention-days]');
    for (const [bad, msg] of [
      ['-3', 'The number of days can’t be negative (0 keeps forever).'],
      ['2.5', 'Whole days only, like 30 (0 keeps forever).'],
      ['', 'Enter a number of days (0 keeps forever).'],
      ['99999', 'At most 36500 days (0 keeps forever).'],
    ]) {
      await days.fill(bad);
      await page.locator('[data-testid=sessions-retention-days-error]').waitFor({ state: 'visible', timeout: 5000 });
      assert.equal(await page.textContent('[data-testid=sessions-retention-days-error]'), msg);
      assert.equal(await days.getAttribute('aria-invalid'), 'true');
    }
    await shot(page, 'restore-settings-invalid');
    await days.blur();
    await new Promise((r) => setTimeout(r, 800)); // longer than the save delay: nothing may have been sent
    assert.equal(await setting(page, 'sessions.retentionDays'), '0', 'a bad value is never sent');

    // A good one saves on its own (typed, no Enter), written the way the host wants it.
    await days.fill('030');
    await waitFor(async () => (await statusText(page, 'sessions-retention-days')) === 'Saved', { message: '"Saved" for sessions.retentionDays' });
    assert.equal(await setting(page, 'sessions.retentionDays'), '30');
    assert.equal(await page.locator('[data-testid=sessions-retention-days-error]').count(), 0);
    assert.equal(await page.textContent('[data-testid=sessions-retention-days-meaning]'), 'Deleted 30 days after it ends.');
    const scroll = page.locator('[data-testid=scrollback-retention-days]');
    await scroll.fill('7');
    await scroll.press('Enter');
    await waitFor(async () => (await statusText(page, 'scrollback-retention-days')) === 'Saved', { message: '"Saved" for scrollback.retentionDays' });
    assert.equal(await setting(page, 'scrollback.retentionDays'), '7');
    await page.locator('[data-testid=continue-after-restart]').check();
    await waitFor(async () => (await statusText(page, 'continue-after-restart')) === 'Saved', { message: '"Saved" for continueAfterRestart' });
    await shot(page, 'restore-settings-saved');

    // After a reload the page shows what the host has.
    await page.reload();
    await waitReady(page);
    await openPrivacy(page);
    assert.equal(await page.locator('[data-testid=continue-after-restart]').isChecked(), true);
    assert.equal(await page.locator('[data-testid=scrollback-persist]').isChecked(), false);
    assert.equal(await page.inputValue('[data-testid=sessions-retention-days]'), '30');
    assert.equal(await page.inputValue('[data-testid=scrollback-retention-days]'), '7');
    // The Agents section is still there.
    await page.click('[data-testid=settings-nav-agents]');
    await page.locator('[data-testid=on-interrupt]').waitFor({ state: 'visible', timeout: 5000 });
    assert.deepEqual(page.errors, [], 'no page errors');
  });
});

test('outcome notices: every outcome, dismiss, Open Sessions, the banner first', { timeout: 120000 }, async () => {
  await withReprise('restore-notices', async ({ page }) => {
    const [pane] = await paneIds(page);
    await waitForPrompt(page, pane);
    const terminalId = await page.getAttribute(paneSel(pane), 'data-terminal-id');
    const now = new Date().toISOString();
    const base = {
      terminalId,
      paneId: pane,
      agentId: 'claude',
      agentLabel: 'Claude Code',
      sessionId: '5b1e2f3a-1111-4222-8333-444455556666',
      resumeOf: '5b1e2f3a-1111-4222-8333-444455556666',
      cwd: '/tmp',
      startedAt: now,
      lastEventAt: now,
      prompted: true,
      endedAt: null,
      endReason: '',
      canResume: true,
      resumable: true,
      candidate: false,
      outcomeAt: now,
    };
    const notice = page.locator(`${paneSel(pane)} [data-testid=resume-outcome]`);
    const cases = [
      ['resuming', '', 'Resuming Claude Code… (waiting for Claude Code to confirm)'],
      ['resumed', 'session 5b1e2f3a-1111-4222-8333-444455556666', 'Resumed Claude Code session 5b1e2f3a'],
      ['fresh', 'the agent started a new session (9c9c) instead of 5b1e2f3a', 'Claude Code started a fresh session: the agent started a new session (9c9c) instead of 5b1e2f3a'],
      ['unconfirmed', 'Aider does not report its sessions to Reprise, so the resume cannot be confirmed', "Claude Code started; Reprise can't confirm it resumed (Aider does not report its sessions to Reprise, so the resume cannot be confirmed)"],
      ['failed', 'exit status 1: No conversation found with session ID: 5b1e2f3a', "Couldn't resume Claude Code: exit status 1: No conversation found with session ID: 5b1e2f3a"],
    ];
    for (const [outcome, detail, text] of cases) {
      await page.evaluate((b) => window.__reprise.injectBinding(b), { ...base, outcome, outcomeDetail: detail });
      await page.locator(`${paneSel(pane)} [data-testid=resume-outcome][data-outcome=${outcome}]`).waitFor({ state: 'visible', timeout: 5000 });
      assert.equal(await notice.locator('[data-testid=resume-outcome-text]').textContent(), text, outcome);
      assert.equal(await notice.getAttribute('role'), 'status');
      assert.equal(await notice.getAttribute('aria-live'), 'polite');
      assert.equal(await notice.locator('[data-testid=dismiss-outcome]').count(), outcome === 'resuming' ? 0 : 1, `${outcome}: dismissible`);
      assert.equal(await notice.locator('[data-testid=outcome-open-sessions]').count(), outcome === 'failed' ? 1 : 0, `${outcome}: Open Sessions`);
      await shot(page, `restore-notice-${outcome}`);
    }

    // Failed stays until dismissed; Open Sessions opens the list searching for the session.
    await notice.locator('[data-testid=outcome-open-sessions]').click();
    await page.locator('[data-testid=sessions-view]').waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await page.inputValue('[data-testid=sessions-query]'), base.resumeOf);
    await page.keyboard.press('Escape');
    await page.locator('[data-testid=sessions-view]').waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await notice.getAttribute('data-outcome'), 'failed', 'still there');
    await notice.locator('[data-testid=dismiss-outcome]').click();
    await notice.waitFor({ state: 'detached', timeout: 5000 });

    // "Resumed" goes by itself after ~8 s.
    await page.evaluate((b) => window.__reprise.injectBinding(b), { ...base, outcome: 'resumed', outcomeDetail: '', outcomeAt: new Date().toISOString() });
    await notice.waitFor({ state: 'visible', timeout: 5000 });
    const shown = Date.now();
    await notice.waitFor({ state: 'detached', timeout: 15000 });
    const gone = Date.now() - shown;
    assert.ok(gone > 5000 && gone < 12000, `auto-hid after ${gone} ms`);

    // A resume banner wins over an outcome notice, and shows the host's resumeError.
    await page.evaluate(
      (b) => window.__reprise.injectBinding(b),
      {
        ...base,
        endedAt: new Date().toISOString(),
        endReason: 'terminal-exited',
        candidate: true,
        outcome: 'resumed',
        resumeError: "couldn't resume Claude Code: claude was not found on PATH",
      },
    );
    const banner = page.locator(`${paneSel(pane)} [data-testid=resume-banner]`);
    await banner.waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await banner.getAttribute('data-kind'), 'failed');
    assert.equal(await banner.locator('[data-testid=resume-banner-text]').textContent(), "Couldn't resume Claude Code: claude was not found on PATH");
    assert.equal(await notice.count(), 0, 'no outcome notice under a banner');
    await shot(page, 'restore-notice-banner-resume-error');
    assert.deepEqual(page.errors, [], 'no page errors');
  });
});

test('Sessions: last outcome of a resumed session, and Forget', { timeout: 240000, skip: NEEDS_GO }, async () => {
  const world = fakeWorld({ prefix: 'rfe2e.' });
  const { work } = world;
  try {
    await withReprise('restore-forget', async ({ page }) => {
      const word = codeword('ibis');
      const run = await rpc(page, 'agents.run', { agent: 'claude', prompt: `remember ${word}`, cwd: work });
      await waitFor(async () => (await layout(page)).tabs.length === 2, { message: 'the agent in a new tab' });
      await waitReady(page);
      const pane = run.paneId;
      await waitForText(page, pane, `ack: remember ${word}`, { timeoutMs: 20000 });
      const sessionId = await waitFor(
        async () => {
          const b = (await page.evaluate(() => window.__reprise.bindings()))[run.terminalId];
          return b?.prompted && b.sessionId;
        },
        { timeoutMs: 15000, message: 'a prompted session' },
      );
      // It says goodbye: a session in the history, not live.
      await typeInPane(page, pane, '/exit\n');
      await waitFor(async () => (await page.evaluate(() => window.__reprise.bindings()))[run.terminalId]?.endReason === 'detached', {
        timeoutMs: 15000,
        message: 'the session ended (detached)',
      });

      // Resume it from Sessions in a new tab: the host confirms, the row says "resumed".
      await page.click('[data-testid=open-sessions]');
      const row = page.locator(`[data-testid=session-row][data-session-id="${sessionId}"]`);
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await row.locator('[data-testid=resume-new-tab]').click();
      await waitFor(async () => (await layout(page)).tabs.length === 3, { message: 'resumed in a new tab' });
      await waitReady(page);
      const l = await layout(page);
      const resumedPane = l.tabs[2].root.id;
      await waitForText(page, resumedPane, `ack: remember ${word}`, { timeoutMs: 20000 });
      await page.locator(`${paneSel(resumedPane)} [data-testid=resume-outcome][data-outcome=resumed]`).waitFor({ state: 'visible', timeout: 20000 });
      await typeInPane(page, resumedPane, '/exit\n');
      await waitFor(async () => (await page.evaluate(() => window.__reprise.bindings()))[l.tabs[2].root.terminalId]?.endReason === 'detached', {
        timeoutMs: 15000,
        message: 'the resumed session ended (detached)',
      });
      await page.click('[data-testid=open-sessions]');
      await row.waitFor({ state: 'visible', timeout: 10000 });
      await waitFor(async () => (await row.locator('[data-testid=session-outcome]').textContent().catch(() => '')) === 'resumed', {
        message: 'last outcome: resumed',
      });
      await shot(page, 'restore-forget-sessions');

      // Forget: asks; Cancel keeps it; Forget deletes it.
      await row.locator('[data-testid=forget-session]').click();
      const dialog = page.locator('[data-testid=confirm-dialog]');
      await dialog.waitFor({ state: 'visible', timeout: 5000 });
      assert.equal(await dialog.locator('#confirm-title').textContent(), 'Forget this session?');
      assert.equal(await dialog.locator('#confirm-message').textContent(), 'Its history and saved output are deleted.');
      await shot(page, 'restore-forget-confirm');
      await page.click('[data-testid=confirm-cancel]');
      await dialog.waitFor({ state: 'detached', timeout: 5000 });
      assert.equal(await row.count(), 1, 'Cancel keeps it');
      await row.locator('[data-testid=forget-session]').click();
      await page.click('[data-testid=confirm-ok]');
      await row.waitFor({ state: 'detached', timeout: 10000 });
      const left = await rpc(page, 'sessions.list', { all: true });
      assert.ok(!left.some((s) => s.sessionId === sessionId), 'the host forgot it');
      assert.deepEqual(page.errors, [], 'no page errors');
    });
  } finally {
    world.done();
  }
});
