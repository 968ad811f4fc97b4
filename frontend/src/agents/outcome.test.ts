import { describe, expect, it } from 'vitest';
import { hideAt, isOutcome, LAUNCH_PENDING_MS, launchNotice, outcomeDismissKey, outcomeNotice, RESUMED_VISIBLE_MS, shortId } from './outcome';
import { binding } from './testdata';

/** The binding of a terminal the host relaunched Claude Code in, resuming s-1. */
const relaunched = (outcome: string, outcomeDetail = '') =>
  binding({
    terminalId: 't2',
    sessionId: '3f2a9c1b-0000-4000-8000-000000000001',
    resumeOf: '3f2a9c1b-0000-4000-8000-000000000001',
    endReason: '',
    endedAt: null,
    candidate: false,
    outcome,
    outcomeDetail,
    outcomeAt: '2026-11-29T10:10:00Z',
  });

describe('outcomeNotice', () => {
  it('says "resuming…" until the agent confirms, and never dismissible', () => {
    expect(outcomeNotice(relaunched('resuming'))).toEqual({
      outcome: 'resuming',
      text: 'Resuming Claude Code… (waiting for Claude Code to confirm)',
      autoHideMs: null,
      dismissible: false,
      openSessions: false,
    });
  });

  it('says resumed with the short session id, and hides on its own', () => {
    const n = outcomeNotice(relaunched('resumed', 'session 3f2a9c1b-0000-4000-8000-000000000001'))!;
    expect(n.text).toBe('Resumed Claude Code session 3f2a9c1b');
    expect(n.autoHideMs).toBe(RESUMED_VISIBLE_MS);
    expect(n.dismissible).toBe(true);
    expect(n.openSessions).toBe(false);
  });

  it('says a fresh session started, with the detail, and stays', () => {
    const n = outcomeNotice(relaunched('fresh', 'the agent started a new session (s-9) instead of s-1'))!;
    expect(n.text).toBe('Claude Code started a fresh session: the agent started a new session (s-9) instead of s-1');
    expect(n.autoHideMs).toBeNull();
    expect(n.dismissible).toBe(true);
  });

  it('says why a resume failed, stays until dismissed, and offers Sessions to retry', () => {
    const n = outcomeNotice(relaunched('failed', 'exit status 1: No conversation found with session ID: s-1'))!;
    expect(n.text).toBe("Couldn't resume Claude Code: exit status 1: No conversation found with session ID: s-1");
    expect(n.autoHideMs).toBeNull();
    expect(n.dismissible).toBe(true);
    expect(n.openSessions).toBe(true);
  });

  it('says an agent that reports nothing started, without claiming it resumed', () => {
    const n = outcomeNotice(relaunched('unconfirmed', 'Aider does not report its sessions to Reprise, so the resume cannot be confirmed'))!;
    expect(n.text).toBe(
      "Claude Code started; Reprise can't confirm it resumed (Aider does not report its sessions to Reprise, so the resume cannot be confirmed)",
    );
    expect(n.text).not.toMatch(/^Resumed/);
    expect(n.autoHideMs).toBeNull();
  });

  it('reads well without a detail or a label', () => {
    expect(outcomeNotice(relaunched('fresh'))?.text).toBe('Claude Code started a fresh session');
    expect(outcomeNotice(relaunched('failed'))?.text).toBe("Couldn't resume Claude Code");
    expect(outcomeNotice(relaunched('unconfirmed'))?.text).toBe("Claude Code started; Reprise can't confirm it resumed");
    expect(outcomeNotice({ ...relaunched('resumed'), agentLabel: '' })?.text).toBe('Resumed claude session 3f2a9c1b');
    expect(outcomeNotice({ ...relaunched('resumed'), resumeOf: '', sessionId: '' })?.text).toBe('Resumed Claude Code');
  });

  it('shows nothing without an outcome, or for one it does not know', () => {
    expect(outcomeNotice(undefined)).toBeNull();
    expect(outcomeNotice(binding())).toBeNull();
    expect(outcomeNotice(relaunched(''))).toBeNull();
    expect(outcomeNotice(relaunched('teleported'))).toBeNull();
    expect(isOutcome('resumed')).toBe(true);
    expect(isOutcome('nope')).toBe(false);
  });

  it('never says "Resumed" for anything but a confirmed resume', () => {
    for (const o of ['resuming', 'fresh', 'failed', 'unconfirmed']) {
      expect(outcomeNotice(relaunched(o, 'x'))?.text).not.toMatch(/^Resumed/);
    }
  });
});

describe('helpers', () => {
  it('shortens session ids to 8 characters', () => {
    expect(shortId('3f2a9c1b-0000-4000-8000-000000000001')).toBe('3f2a9c1b');
    expect(shortId('abc')).toBe('abc');
    expect(shortId(undefined)).toBe('');
  });

  it('hides "resumed" 8 s after the outcome, or after the page first showed it if that is earlier', () => {
    const n = outcomeNotice(relaunched('resumed'))!;
    const at = Date.parse('2026-11-29T10:10:00Z');
    expect(hideAt(n, '2026-11-29T10:10:00Z', at + 1000)).toBe(at + RESUMED_VISIBLE_MS);
    // Recorded long ago (a reload later): already gone.
    expect(hideAt(n, '2026-11-29T10:10:00Z', at + 60_000)! < at + 60_000).toBe(true);
    // The host's clock ahead of the page's, or no time: from when the page saw it.
    expect(hideAt(n, '2026-11-29T10:10:05Z', at)).toBe(at + RESUMED_VISIBLE_MS);
    expect(hideAt(n, null, at)).toBe(at + RESUMED_VISIBLE_MS);
    expect(hideAt(n, 'garbage', at)).toBe(at + RESUMED_VISIBLE_MS);
    expect(hideAt(outcomeNotice(relaunched('failed'))!, '2026-11-29T10:10:00Z', at)).toBeNull();
  });

  it('keys a dismissal by terminal and outcome', () => {
    expect(outcomeDismissKey(relaunched('failed'))).toBe('outcome:t2/failed');
  });
});

describe('launchNotice: the page\'s own "Resuming…" for a resume it asked for', () => {
  const at = 1_000_000;
  const live = binding({ terminalId: 't2', endReason: '', endedAt: null, candidate: false });

  it('says resuming while the new terminal has no outcome from the host yet', () => {
    const before = launchNotice({ label: 'Claude Code', at }, 't-shell', undefined, at + 10);
    expect(before?.text).toBe('Resuming Claude Code… (waiting for Claude Code to confirm)');
    expect(before?.outcome).toBe('resuming');
    expect(launchNotice({ label: 'Claude Code', terminalId: 't2', at }, 't2', live, at + 100)?.outcome).toBe('resuming');
  });

  it('gives way to the host\'s outcome, and never says more than resuming', () => {
    const l = { label: 'Claude Code', terminalId: 't2', at };
    for (const outcome of ['resuming', 'resumed', 'fresh', 'failed', 'unconfirmed']) {
      expect(launchNotice(l, 't2', { ...live, outcome }, at + 100)).toBeNull();
    }
    // The agent already ended, another terminal, no launch, or too long ago: nothing.
    expect(launchNotice(l, 't2', { ...live, endReason: 'detached', endedAt: '2026-11-29T10:00:00Z' }, at + 100)).toBeNull();
    expect(launchNotice(l, 't9', live, at + 100)).toBeNull();
    expect(launchNotice(undefined, 't2', live, at)).toBeNull();
    expect(launchNotice(l, 't2', live, at + LAUNCH_PENDING_MS + 1)).toBeNull();
  });
});
