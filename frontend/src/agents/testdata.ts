// Fixtures for unit tests (never imported by the app).

import type { Binding } from '../api';

/** A resume candidate: Claude Code in t1 (pane p1), session s-1, its terminal died. */
export function binding(over: Partial<Binding> = {}): Binding {
  return {
    terminalId: 't1',
    paneId: 'p1',
    agentId: 'claude',
    agentLabel: 'Claude Code',
    sessionId: 's-1',
    cwd: '/work',
    startedAt: '2026-11-29T10:00:00Z',
    lastEventAt: '2026-11-29T10:05:00Z',
    prompted: true,
    endedAt: '2026-11-29T10:06:00Z',
    endReason: 'terminal-exited',
    canResume: true,
    resumable: true,
    candidate: true,
    ...over,
  };
}

