import { describe, expect, it } from 'vitest';
import type { Terminal } from '../api';
import { binding } from './testdata';
import { bannerView, dismissKey, Dismissals, failureReason, liveAgentLabel, paneBinding, type ResumeState } from './banner';

const resuming: ResumeState = { phase: 'resuming' };
const failed = (reason: string): ResumeState => ({ phase: 'failed', reason });

describe('bannerView', () => {
  it('walks candidate → resuming → failed → retry (resuming) → resumed (gone)', () => {
    const cand = binding();
    expect(bannerView(cand, undefined, false)).toEqual({ kind: 'candidate', label: 'Claude Code' });

    // Resume pressed: the host claims the candidate at once (no longer a candidate)
    // while it launches; the banner keeps saying "Resuming…".
    expect(bannerView(cand, resuming, false)).toEqual({ kind: 'resuming', label: 'Claude Code' });
    const claimed = binding({ endReason: 'resumed', candidate: false });
    expect(bannerView(claimed, resuming, false)).toEqual({ kind: 'resuming', label: 'Claude Code' });

    // The launch failed: the host un-claims (a candidate again) and answers an error.
    expect(bannerView(cand, failed('claude was not found on PATH'), false)).toEqual({
      kind: 'failed',
      label: 'Claude Code',
      reason: 'claude was not found on PATH',
    });

    // Retry: resuming again.
    expect(bannerView(cand, resuming, false).kind).toBe('resuming');

    // Success: the request is done (no state) and the binding says resumed.
    expect(bannerView(claimed, undefined, false)).toEqual({ kind: 'none' });
  });

  it('goes away when dismissed, but not while a request is in flight', () => {
    const cand = binding();
    expect(bannerView(cand, undefined, true)).toEqual({ kind: 'none' });
    expect(bannerView(cand, failed('x'), true)).toEqual({ kind: 'none' });
    expect(bannerView(cand, resuming, true).kind).toBe('resuming');
  });

  it('goes away when the binding is superseded (a new live session, resumed elsewhere)', () => {
    const live = binding({ sessionId: 's-2', endReason: '', endedAt: null, candidate: false });
    expect(bannerView(live, undefined, false)).toEqual({ kind: 'none' });
    // A failure noted earlier does not bring it back once it is no longer a candidate.
    expect(bannerView(binding({ endReason: 'resumed', candidate: false }), failed('x'), false)).toEqual({ kind: 'none' });
  });

  it('says why a terminal-exited conversation cannot be resumed, without a Resume button', () => {
    const why = 'Claude Code has no resume args configured (Settings → Agents), so this session can\'t be resumed by id.';
    const b = binding({ candidate: false, resumable: false, canResume: false, unavailable: why });
    expect(bannerView(b, undefined, false)).toEqual({ kind: 'unavailable', label: 'Claude Code', reason: why });
    expect(bannerView(b, undefined, true)).toEqual({ kind: 'none' });
  });

  it('offers no Resume when the folder is gone; offers to recreate it where that brings the conversation back', () => {
    // The host refuses the candidate: the relaunch would fail with "No such directory".
    const why = 'The folder /work/gone is gone. Claude Code keeps this conversation by folder: recreating the empty folder and resuming there brings the conversation back, but not the files that were in it.';
    const b = binding({ candidate: false, unavailable: why, recreateCwd: '/work/gone' });
    expect(bannerView(b, undefined, false)).toEqual({ kind: 'unavailable', label: 'Claude Code', reason: why, recreate: '/work/gone' });
    // Recreate folder and resume: in flight, then a failure with Retry (that recreates again).
    expect(bannerView(b, resuming, false).kind).toBe('resuming');
    expect(bannerView(b, failed('permission denied'), false)).toEqual({ kind: 'failed', label: 'Claude Code', reason: 'permission denied', recreate: '/work/gone' });
    expect(bannerView(b, undefined, true)).toEqual({ kind: 'none' });

    // An agent where recreating the folder is not known to help: it says so, and offers nothing.
    const codex = binding({ agentId: 'codex', agentLabel: 'Codex', candidate: false, unavailable: "The folder /w is gone, so Codex can't be resumed there." });
    const view = bannerView(codex, undefined, false);
    expect(view).toEqual({ kind: 'unavailable', label: 'Codex', reason: "The folder /w is gone, so Codex can't be resumed there." });
    // A failed click that raced the host's refusal does not turn into a Retry that cannot work.
    expect(bannerView(codex, failed('No such directory: /w'), false).kind).toBe('unavailable');
  });

  it('says nothing for an agent that was never prompted: there was no conversation to lose', () => {
    const b = binding({ candidate: false, resumable: false, prompted: false, unavailable: 'The session was never prompted.' });
    expect(bannerView(b, undefined, false)).toEqual({ kind: 'none' });
  });

  it("shows the host's failed automatic resume as a failure with Retry", () => {
    const b = binding({ resumeError: "couldn't resume Claude Code: claude was not found on PATH" });
    expect(bannerView(b, undefined, false)).toEqual({ kind: 'failed', label: 'Claude Code', reason: 'claude was not found on PATH' });
    // The page's own attempt says more recently what happened.
    expect(bannerView(b, failed('cwd gone'), false)).toEqual({ kind: 'failed', label: 'Claude Code', reason: 'cwd gone' });
    expect(bannerView(b, resuming, false).kind).toBe('resuming');
    expect(bannerView(b, undefined, true).kind).toBe('none');
    // Not a candidate any more: the error is history.
    expect(bannerView(binding({ resumeError: 'x', candidate: false, endReason: 'resumed' }), undefined, false).kind).toBe('none');
  });

  it('shows nothing for live, detached, disposed or missing bindings', () => {
    expect(bannerView(undefined, undefined, false).kind).toBe('none');
    for (const endReason of ['', 'detached', 'disposed', 'resumed']) {
      expect(bannerView(binding({ endReason, candidate: false }), undefined, false).kind).toBe('none');
    }
    // terminal-exited but not a candidate and no reason given: nothing to say.
    expect(bannerView(binding({ candidate: false }), undefined, false).kind).toBe('none');
  });

  it('falls back to the agent id when the label is missing', () => {
    expect(bannerView(binding({ agentLabel: '' }), undefined, false)).toEqual({ kind: 'candidate', label: 'claude' });
  });
});

describe('paneBinding', () => {
  const t = (id: string, restoredFrom?: string): Terminal => ({ id, pid: 1, cwd: '/', argv: null, status: 'running', createdAt: '', restoredFrom });

  it("uses the terminal's own binding", () => {
    const b = binding();
    expect(paneBinding('t1', {}, { t1: b })).toBe(b);
    expect(paneBinding('t9', {}, { t1: b })).toBeUndefined();
  });

  it('follows restoredFrom to the lost terminal an interrupted agent ran in', () => {
    const b = binding({ terminalId: 'old' });
    const terms = { new: t('new', 'mid'), mid: t('mid', 'old'), old: t('old') };
    expect(paneBinding('new', terms, { old: b })).toBe(b);
    // Only for an interrupted one: a clean goodbye is not the new shell's business.
    expect(paneBinding('new', terms, { old: binding({ terminalId: 'old', endReason: 'detached', candidate: false }) })).toBeUndefined();
  });
});

describe('helpers', () => {
  it('remembers dismissals per terminal and session', () => {
    expect(dismissKey(binding())).toBe('t1/s-1');
    expect(dismissKey(binding({ sessionId: undefined }))).toBe('t1/');
    const mem = new Map<string, string>();
    const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) };
    const d = new Dismissals(storage);
    expect(d.load()).toEqual({});
    d.save({ 't1/s-1': true, 't2/s-9': true });
    expect(new Dismissals(storage).load()).toEqual({ 't1/s-1': true, 't2/s-9': true });
    mem.set('reprise.dismissedResume', 'not json');
    expect(new Dismissals(storage).load()).toEqual({});
    expect(new Dismissals(null).load()).toEqual({});
  });

  it('names the live agent only while it runs', () => {
    expect(liveAgentLabel(binding({ endReason: '', endedAt: null }))).toBe('Claude Code');
    expect(liveAgentLabel(binding())).toBeUndefined();
    expect(liveAgentLabel(undefined)).toBeUndefined();
  });

  it("drops the host's own “couldn't resume X:” from the reason", () => {
    expect(failureReason('Claude Code', "couldn't resume Claude Code: No such directory: /gone")).toBe('No such directory: /gone');
    expect(failureReason('Claude Code', 'connection lost')).toBe('connection lost');
  });
});
