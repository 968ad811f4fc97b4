import { describe, expect, it } from 'vitest';
import { binding } from './agents/testdata';
import type { Layout } from './api';
import { Backend } from './backend';
import { Store } from './store';
import { Emitter, type ConnectionState, type Transport } from './transport/transport';

const l = (version: number): Layout => ({ version, tabs: [], activeTabId: String(version) });

describe('Store', () => {
  it('drops layouts older than the one it has, unless forced (hello)', () => {
    const s = new Store();
    let n = 0;
    s.subscribe(() => n++);
    s.setLayout(l(5));
    s.setLayout(l(4));
    expect(s.get().layout?.version).toBe(5);
    s.setLayout(l(6));
    expect(s.get().layout?.version).toBe(6);
    s.setLayout(l(2), true); // a restarted host may start over
    expect(s.get().layout?.version).toBe(2);
    expect(n).toBe(3);
  });

  it('does not notify when nothing changed', () => {
    const s = new Store();
    let n = 0;
    s.subscribe(() => n++);
    s.setTitle('t1', 'vim');
    s.setTitle('t1', 'vim');
    s.setPaneError('p1', null);
    s.set('searchPaneId', null);
    expect(n).toBe(1);
  });
});

describe('Store bindings', () => {
  it('keeps bindings by terminal id; events replace one, the list replaces all', () => {
    const s = new Store();
    let n = 0;
    s.subscribe(() => n++);
    s.setBindings([binding({ terminalId: 't1' }), binding({ terminalId: 't2', agentId: 'codex', agentLabel: 'Codex' })]);
    expect(Object.keys(s.get().bindings).sort()).toEqual(['t1', 't2']);

    // The agent in t1 was resumed elsewhere: the event replaces its binding.
    s.putBinding(binding({ terminalId: 't1', endReason: 'resumed', candidate: false }));
    expect(s.get().bindings.t1?.endReason).toBe('resumed');
    expect(s.get().bindings.t2?.agentLabel).toBe('Codex');

    // A new terminal's agent starts.
    s.putBinding(binding({ terminalId: 't3', endReason: '', endedAt: null, candidate: false }));
    expect(s.get().bindings.t3?.candidate).toBe(false);

    // The same binding again changes nothing.
    const before = n;
    s.putBinding(binding({ terminalId: 't3', endReason: '', endedAt: null, candidate: false }));
    expect(n).toBe(before);

    // A fresh list (after a reconnect) is the whole truth.
    s.setBindings([binding({ terminalId: 't9' })]);
    expect(Object.keys(s.get().bindings)).toEqual(['t9']);
  });

  it('routes "binding" events from the host into the store', () => {
    const events = new Emitter<[string, unknown]>();
    const t: Transport = {
      state: 'open' as ConnectionState,
      connect: () => Promise.resolve(),
      request: () => new Promise(() => {}),
      notify: () => {},
      onEvent: (cb) => events.on(cb),
      sendBinary: () => {},
      onBinary: (cb) => new Emitter<[Uint8Array]>().on(cb),
      onState: (cb) => new Emitter<[ConnectionState]>().on(cb),
      close: () => {},
    };
    const backend = new Backend(t);
    const s = new Store();
    backend.onBinding((b) => s.putBinding(b));
    events.emit('binding', binding({ terminalId: 't5' }));
    expect(s.get().bindings.t5?.candidate).toBe(true);
    events.emit('binding', binding({ terminalId: 't5', endReason: 'resumed', candidate: false }));
    expect(s.get().bindings.t5?.candidate).toBe(false);
    events.emit('something-newer', {});
    expect(Object.keys(s.get().bindings)).toEqual(['t5']);
  });

  it('tracks resume requests and dismissals', () => {
    const s = new Store();
    s.setResume('t1', { phase: 'resuming' });
    expect(s.get().resumes.t1).toEqual({ phase: 'resuming' });
    s.setResume('t1', { phase: 'failed', reason: 'nope' });
    expect(s.get().resumes.t1).toEqual({ phase: 'failed', reason: 'nope' });
    s.setResume('t1', null);
    expect(s.get().resumes).toEqual({});
    s.setDismissed('t1/s-1');
    expect(s.get().dismissed).toEqual({ 't1/s-1': true });
  });
});
