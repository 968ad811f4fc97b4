// Fixtures for unit tests (never imported by the app).

import type { Binding } from '../api';
import { Emitter, type ConnectionState, type Transport } from '../transport/transport';

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


/** A request the scripted transport has not answered yet. */
export interface Pending {
  method: string;
  params: unknown;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/**
 * An open transport whose requests wait in pending until the test answers them, and whose
 * events the test emits.
 */
export function scriptedTransport(): { t: Transport; pending: Pending[]; events: Emitter<[string, unknown]> } {
  const pending: Pending[] = [];
  const events = new Emitter<[string, unknown]>();
  const t: Transport = {
    state: 'open' as ConnectionState,
    connect: () => Promise.resolve(),
    request: <T,>(method: string, params: unknown) =>
      new Promise<T>((resolve, reject) => pending.push({ method, params, resolve: resolve as (v: unknown) => void, reject })),
    notify: () => {},
    onEvent: (cb) => events.on(cb),
    sendBinary: () => {},
    onBinary: (cb) => new Emitter<[Uint8Array]>().on(cb),
    onState: (cb) => new Emitter<[ConnectionState]>().on(cb),
    close: () => {},
  };
  return { t, pending, events };
}
