// The restore summary, outcome refreshes, Forget and the new settings through Actions and the
// Backend facade over a scripted transport.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { Actions } from '../actions';
import type { RestoreReport } from '../api';
import { Backend } from '../backend';
import { Store } from '../store';
import { ViewRegistry } from '../terminal/registry';
import { Dismissals } from './banner';
import { RestoreDismissals, restoreVisible } from './restore';
import { binding, scriptedTransport, type Pending } from './testdata';

function setup() {
  const { t, pending, events } = scriptedTransport();
  const backend = new Backend(t);
  const store = new Store();
  const mem = new Map<string, string>();
  const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) };
  const views = new ViewRegistry(() => {
    throw new Error('no views in this test');
  });
  const actions = new Actions(backend, store, views, new Dismissals(storage), new RestoreDismissals(storage));
  backend.onBinding((b) => actions.noteBinding(b));
  backend.onRestore((r) => store.set('restore', r));
  const take = (method: string): Pending => {
    const i = pending.findIndex((p) => p.method === method);
    if (i < 0) throw new Error(`no pending ${method}; pending: ${pending.map((p) => p.method).join(', ')}`);
    return pending.splice(i, 1)[0]!;
  };
  return { store, actions, events, pending, take, storage };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

const report: RestoreReport = { at: '2026-11-29T10:00:00Z', summary: '1 will resume · 2 fresh', recovered: true, panes: [] };

afterEach(() => {
  vi.useRealTimers();
});

describe('restore report', () => {
  it('is asked for after hello and replaced by restore events', async () => {
    const { store, actions, events, take } = setup();
    const p = actions.loadRestore();
    take('restore.report').resolve(report);
    await p;
    expect(store.get().restore).toEqual(report);
    const later = { ...report, at: '2026-11-29T11:00:00Z', summary: '1 fresh' };
    events.emit('restore', later);
    expect(store.get().restore).toEqual(later);
  });

  it('an older host without restore.report: no summary, no error', async () => {
    const { store, actions, take } = setup();
    const p = actions.loadRestore();
    take('restore.report').reject(new Error('unknown method "restore.report"'));
    await p;
    expect(store.get().restore).toBeNull();
  });

  it('a dismissal is remembered for that report across reloads', () => {
    const { store, actions, storage } = setup();
    store.set('restore', report);
    actions.dismissRestore(report.at);
    expect(restoreVisible(store.get().restore, store.get().restoreDismissed)).toBe(false);
    expect(new RestoreDismissals(storage).load()).toEqual({ [report.at]: true });
  });
});

describe('outcomes the host does not push', () => {
  it('lists bindings again shortly after a new agent appears, so "resuming…" shows', async () => {
    vi.useFakeTimers();
    const { store, events, take, pending } = setup();
    const launched = binding({ terminalId: 't2', endReason: '', endedAt: null, candidate: false });
    events.emit('binding', launched);
    expect(store.get().bindings.t2).toEqual(launched);
    expect(pending).toHaveLength(0);
    // Another event for the same terminal does not ask again.
    events.emit('binding', { ...launched, lastEvent: 'SessionStart' });
    vi.advanceTimersByTime(300);
    const list = take('bindings.list');
    expect(pending).toHaveLength(0);
    list.resolve([{ ...launched, resumeOf: 's-1', outcome: 'resuming' }]);
    await vi.runAllTimersAsync();
    expect(store.get().bindings.t2?.outcome).toBe('resuming');
  });

  it('does not ask for bindings that already carry an outcome, or ended ones', () => {
    vi.useFakeTimers();
    const { events, pending } = setup();
    events.emit('binding', binding({ terminalId: 't3', endReason: '', endedAt: null, outcome: 'resumed', resumeOf: 's-1' }));
    events.emit('binding', binding({ terminalId: 't4' }));
    vi.advanceTimersByTime(1000);
    expect(pending).toHaveLength(0);
  });

  it('after the Resume button succeeds, lists bindings again', async () => {
    const { store, actions, take } = setup();
    store.setBindings([binding()]);
    const p = actions.resume(binding());
    take('resume').resolve({ terminalId: 't2', paneId: 'p1', agentId: 'claude', sessionId: 's-1', argv: [], fromTerminalId: 't1' });
    await p;
    await new Promise((r) => setTimeout(r, 5));
    take('bindings.list');
  });
});

describe('forget a session', () => {
  it('asks first; Cancel sends nothing', async () => {
    const { store, actions, pending } = setup();
    const p = actions.forgetSession({ agentId: 'claude', sessionId: 's-1' });
    const req = store.get().confirm!;
    expect(req.title).toBe('Forget this session?');
    expect(req.message).toBe('Its history and saved output are deleted.');
    expect(req.confirmLabel).toBe('Forget');
    req.resolve(false);
    expect(await p).toBe(false);
    expect(pending).toHaveLength(0);
  });

  it('confirmed: sessions.forget with the agent and session', async () => {
    const { store, actions, take } = setup();
    const p = actions.forgetSession({ agentId: 'claude', sessionId: 's-1' });
    store.get().confirm!.resolve(true);
    await tick();
    const req = take('sessions.forget');
    expect(req.params).toEqual({ agentId: 'claude', sessionId: 's-1' });
    req.resolve(null);
    expect(await p).toBe(true);
  });
});

describe('settings', () => {
  it('reads and writes the restart and privacy keys', async () => {
    const { actions, take } = setup();
    const g = actions.getSetting('agents.continueAfterRestart');
    const get = take('settings.get');
    expect(get.params).toEqual({ key: 'agents.continueAfterRestart' });
    get.resolve({ value: 'false' });
    expect(await g).toBe('false');
    const s = actions.setSetting('sessions.retentionDays', '30');
    const set = take('settings.set');
    expect(set.params).toEqual({ key: 'sessions.retentionDays', value: '30' });
    set.reject(new Error('setting sessions.retentionDays: "x" is not a whole number of days (0 = keep forever)'));
    await expect(s).rejects.toThrow(/whole number of days/);
  });
});
