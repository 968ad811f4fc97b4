import { describe, expect, it } from 'vitest';
import type { Terminal } from '../api';
import { basename, heldLine, paneTitle, restoredLabel, terminalState } from './describe';

const base: Terminal = { id: 't1', pid: 10, cwd: '/home/me/proj/', argv: ['/bin/bash'], status: 'running', createdAt: '' };

describe('pane title and state', () => {
  it('names a pane by OSC title, then foreground, then cwd', () => {
    expect(paneTitle(base, 'vim: main.go')).toBe('vim: main.go');
    expect(paneTitle({ ...base, foreground: 'claude' }, '')).toBe('claude');
    expect(paneTitle({ ...base, foreground: 'claude' }, '  ')).toBe('claude');
    expect(paneTitle(base, undefined)).toBe('proj');
    expect(paneTitle({ ...base, cwd: '/' }, undefined)).toBe('/');
    expect(paneTitle({ ...base, cwd: '' }, undefined)).toBe('bash');
    expect(paneTitle(undefined, undefined)).toBe('terminal');
    expect(basename('a/b')).toBe('b');
  });

  it('says how the process ended', () => {
    expect(terminalState(base).label).toBe('running');
    expect(terminalState({ ...base, status: 'exited', exitCode: 0 }).label).toBe('exited (status 0)');
    expect(terminalState({ ...base, status: 'exited', exitCode: 2 }).label).toBe('exited (status 2)');
    expect(terminalState({ ...base, status: 'exited', exitSignal: 'SIGKILL' })).toEqual({ kind: 'killed', label: 'killed (SIGKILL)' });
    expect(terminalState({ ...base, status: 'exited', exitSignal: 'TERM' }).label).toBe('killed (SIGTERM)');
    expect(terminalState({ ...base, status: 'exited', exitSignal: 'killed' }).label).toBe('killed (killed)');
    expect(terminalState({ ...base, status: 'lost' }).label).toBe('lost');
    expect(terminalState({ ...base, status: 'closed' }).label).toBe('closed');
    expect(terminalState(undefined).kind).toBe('unknown');
  });

  it('labels restored scrollback', () => {
    expect(restoredLabel(base)).toBeNull();
    expect(restoredLabel({ ...base, restoredFrom: 't0' })?.label).toBe('restored');
    const at = '2025-01-02T03:04:05Z';
    expect(restoredLabel({ ...base, restoredFrom: 't0', restoredEndedAt: at })?.detail).toBe(
      `Output above the divider is from before the terminal ended at ${new Date(at).toLocaleString()}`,
    );
    expect(restoredLabel({ ...base, restoredFrom: 't0' })?.detail).toBe('Output above the divider is from before the terminal ended');
    expect(restoredLabel({ ...base, restoredFrom: 't0', restoredEndedAt: 'garbage' })?.detail).toBe('Output above the divider is from before the terminal ended');
  });
});

describe('the pane says what it holds', () => {
  const offline = { pill: 'disconnected', line: 'input paused — reconnecting' };
  it('while offline: why, and how much is held', () => {
    expect(heldLine(offline, 0)).toBe('input paused — reconnecting');
    expect(heldLine(offline, 1)).toBe('input paused — reconnecting · 1 byte typed, sent when back');
  });
  it('held while not offline (an attach not finished) is said, not silent', () => {
    expect(heldLine(null, 7)).toBe('7 bytes typed, held until this pane is attached to its terminal');
    expect(heldLine(null, 0)).toBeNull();
  });
  it('an attach still waiting for the host is said; held input and offline say more and win', () => {
    expect(heldLine(null, 0, true)).toBe("attaching to this pane's terminal — waiting for the host to answer");
    expect(heldLine(null, 3, true)).toBe('3 bytes typed, held until this pane is attached to its terminal');
    expect(heldLine({ pill: 'disconnected', line: 'input paused — reconnecting' }, 0, true)).toBe('input paused — reconnecting');
  });
});
