// The Resume button and the bindings list, through Actions and the Backend facade
// over a scripted transport.

import { describe, expect, it } from 'vitest';
import { Actions } from '../actions';
import type { Layout, Session } from '../api';
import { Backend } from '../backend';
import { Store } from '../store';
import { ViewRegistry } from '../terminal/registry';
import { bannerView, dismissKey, Dismissals } from './banner';
import { binding, scriptedTransport, type Pending } from './testdata';

function setup() {
  const { t, pending, events } = scriptedTransport();
  const backend = new Backend(t);
  const store = new Store();
  backend.onBinding((b) => store.putBinding(b));
  const mem = new Map<string, string>();
  const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) };
  const views = new ViewRegistry(() => {
    throw new Error('no views in this test');
  });
  const actions = new Actions(backend, store, views, new Dismissals(storage));
  const take = (method: string): Pending => {
    const i = pending.findIndex((p) => p.method === method);
    if (i < 0) throw new Error(`no pending ${method}; pending: ${pending.map((p) => p.method).join(', ')}`);
    return pending.splice(i, 1)[0]!;
  };
  const view = (terminalId = 't1') => {
    const s = store.get();
    const b = s.bindings[terminalId];
    return bannerView(b, s.resumes[terminalId], b ? s.dismissed[dismissKey(b)] === true : false);
  };
  return { backend, store, actions, events, pending, take, view, storage };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('resume', () => {
  it('candidate → resuming → failed → Retry → resumed', async () => {
    const { store, actions, events, pending, take, view } = setup();
    store.setBindings([binding()]);
    expect(view().kind).toBe('candidate');

    const first = actions.resume(binding());
    expect(view().kind).toBe('resuming');
    // A second press while in flight sends nothing.
    await actions.resume(binding());
    expect(pending.filter((p) => p.method === 'resume')).toHaveLength(1);
    const req = take('resume');
    expect(req.params).toEqual({ terminalId: 't1' });

    // The host claims it (event), the launch fails, it un-claims (event) and answers an error.
    events.emit('binding', binding({ endReason: 'resumed', candidate: false }));
    expect(view().kind).toBe('resuming');
    events.emit('binding', binding());
    req.reject(new Error("couldn't resume Claude Code: No such directory: /work"));
    await first;
    expect(view()).toEqual({ kind: 'failed', label: 'Claude Code', reason: 'No such directory: /work' });

    // Retry.
    const second = actions.resume(binding());
    expect(view().kind).toBe('resuming');
    events.emit('binding', binding({ endReason: 'resumed', candidate: false }));
    take('resume').resolve({ terminalId: 't2', paneId: 'p1', agentId: 'claude', sessionId: 's-1', argv: [], fromTerminalId: 't1' });
    await second;
    expect(store.get().resumes).toEqual({});
    expect(view().kind).toBe('none');
  });

  it('Recreate folder and resume asks the host to recreate the folder; Retry asks again', async () => {
    const { store, actions, take, view } = setup();
    const gone = binding({ candidate: false, unavailable: 'The folder /work is gone.', recreateCwd: '/work' });
    store.setBindings([gone]);
    expect(view()).toMatchObject({ kind: 'unavailable', recreate: '/work' });
    const first = actions.resume(gone, { recreateCwd: true });
    expect(view().kind).toBe('resuming');
    const req = take('resume');
    expect(req.params).toEqual({ terminalId: 't1', recreateCwd: true });
    req.reject(new Error("couldn't recreate the folder /work: permission denied"));
    await first;
    expect(view()).toMatchObject({ kind: 'failed', recreate: '/work' });
    const second = actions.resume(gone, { recreateCwd: true });
    take('resume').resolve({ terminalId: 't2', paneId: 'p1', agentId: 'claude', sessionId: 's-1', argv: [], fromTerminalId: 't1' });
    await second;
    expect(store.get().resumes).toEqual({});
  });

  it('dismiss hides the banner for this session and remembers it; a new candidate session shows again', async () => {
    const { store, actions, view, storage } = setup();
    store.setBindings([binding()]);
    actions.dismissResume(binding());
    expect(view().kind).toBe('none');
    expect(new Dismissals(storage).load()).toEqual({ 't1/s-1': true });
    // The same terminal later has another interrupted session: a new banner.
    store.putBinding(binding({ sessionId: 's-2' }));
    expect(view().kind).toBe('candidate');
  });

  it('the banner goes when another window resumed the session (superseded)', () => {
    const { store, events, view } = setup();
    store.setBindings([binding()]);
    expect(view().kind).toBe('candidate');
    events.emit('binding', binding({ endReason: 'resumed', candidate: false }));
    expect(view().kind).toBe('none');
  });
});

describe('loadBindings', () => {
  it('applies events that arrive while the list is on its way on top of it', async () => {
    const { store, actions, events, take } = setup();
    const done = actions.loadBindings();
    const req = take('bindings.list');
    expect(req.params).toEqual({});
    // The terminal died after the host made the list but before the page got it.
    events.emit('binding', binding({ terminalId: 't2' }));
    req.resolve([binding({ terminalId: 't1', endReason: '', endedAt: null, candidate: false }), binding({ terminalId: 't2', endReason: '', endedAt: null, candidate: false })]);
    await done;
    const bs = store.get().bindings;
    expect(bs.t1?.candidate).toBe(false);
    expect(bs.t2?.candidate).toBe(true);
  });

  it('keeps going without bindings on a host that does not know the method', async () => {
    const { store, actions, take } = setup();
    store.setBindings([binding()]);
    const done = actions.loadBindings();
    take('bindings.list').reject(new Error('unknown method "bindings.list"'));
    await done;
    expect(Object.keys(store.get().bindings)).toEqual(['t1']);
  });

  it('tolerates a null list', async () => {
    const { store, actions, take } = setup();
    const done = actions.loadBindings();
    take('bindings.list').resolve(null);
    await done;
    expect(store.get().bindings).toEqual({});
  });
});

describe('resumeSession', () => {
  const layout: Layout = {
    version: 1,
    activeTabId: 'tab1',
    tabs: [{ id: 'tab1', title: '', focusedPaneId: 'p1', root: { type: 'pane', id: 'p1', terminalId: 't1' } }],
  };
  const session: Session = {
    agentId: 'codex',
    agentLabel: 'Codex',
    sessionId: '0199-abc',
    cwd: '/work/proj',
    firstSeenAt: '2026-11-29T10:00:00Z',
    firstPromptAt: '2026-11-29T10:01:00Z',
    lastActivityAt: '2026-11-29T10:05:00Z',
    endReason: 'detached',
    live: false,
    resumable: true,
    candidate: false,
  };

  it('resumes in the focused pane with agents.run {paneId}, asking first when something runs there', async () => {
    const { store, actions, take } = setup();
    store.setLayout(layout);
    store.set('view', 'sessions');
    const done = actions.resumeSession(session, 'here');
    take('terminals.foreground').resolve({ busy: true, command: 'vim' });
    await tick();
    expect(store.get().confirm?.message).toBe('vim is still running in the focused pane. Replace it with Codex?');
    store.get().confirm!.resolve(true);
    await tick();
    const run = take('agents.run');
    expect(run.params).toEqual({ agent: 'codex', resumeSessionId: '0199-abc', cwd: '/work/proj', paneId: 'p1' });
    run.resolve({ terminalId: 't2', paneId: 'p1', argv: ['codex', 'resume', '0199-abc'] });
    expect(await done).toBe(true);
    expect(store.get().view).toBe('terminals');
  });

  it('resumes in a new tab without paneId', async () => {
    const { store, actions, take } = setup();
    store.setLayout(layout);
    const done = actions.resumeSession(session, 'newTab');
    await tick();
    const run = take('agents.run');
    expect(run.params).toEqual({ agent: 'codex', resumeSessionId: '0199-abc', cwd: '/work/proj' });
    run.reject(new Error('codex was not found on PATH'));
    await expect(done).rejects.toThrow('codex was not found on PATH');
  });
});
