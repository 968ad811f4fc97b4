import { describe, expect, it } from 'vitest';
import { binding } from '../agents/testdata';
import type { AgentState, Layout } from '../api';
import { Store } from '../store';
import { Attention, type Notifier } from './controller';

const layout: Layout = {
  version: 1,
  activeTabId: 'tab1',
  tabs: [
    { id: 'tab1', focusedPaneId: 'p0', root: { type: 'pane', id: 'p0', terminalId: 't0' } },
    { id: 'tab2', focusedPaneId: 'p1', root: { type: 'pane', id: 'p1', terminalId: 't1' } },
  ],
} as Layout;

/** A window whose focus and visibility the test sets. */
function fakeWindow() {
  const doc = { visibilityState: 'visible', focused: true, title: '', hasFocus() { return this.focused; }, addEventListener() {} };
  return { document: doc, addEventListener() {} };
}

function setup(states: AgentState[] = []) {
  const store = new Store();
  store.setLayout(layout);
  const shown: { title: string; body: string; paneId: string; tag: string }[] = [];
  const notifier: Notifier = { kind: 'browser', show: (n) => shown.push(n) };
  const win = fakeWindow();
  const revealed: string[] = [];
  const a = new Attention(
    store,
    { agents: { states: () => Promise.resolve(states) } },
    { revealPane: (p) => revealed.push(p), getSetting: () => Promise.resolve('') },
    notifier,
    win as unknown as Window,
  );
  const live = (agentState: string, at: string) => binding({ agentState, lastEventAt: at, endedAt: null, endReason: '', candidate: false });
  return { store, shown, win, a, live };
}

describe('Attention', () => {
  it('notifies once per turn for an agent in a background tab, naming it, with the pane', () => {
    const { shown, a, live } = setup();
    a.onBinding(live('starting', '2026-12-02T01:00:00Z'));
    a.onBinding(live('working', '2026-12-02T01:00:01Z'));
    a.onBinding(live('needs-input', '2026-12-02T01:00:02Z'));
    a.onBinding(live('needs-input', '2026-12-02T01:00:03Z')); // the same state again (another event)
    a.onBinding(live('working', '2026-12-02T01:00:04Z'));
    a.onBinding(live('idle', '2026-12-02T01:00:05Z'));
    expect(shown.map((n) => [n.title, n.paneId])).toEqual([
      ['Claude Code needs your input', 'p1'],
      ['Claude Code finished its turn', 'p1'],
    ]);
    expect(new Set(shown.map((n) => n.tag)).size).toBe(2);
  });

  it('the same pane in front, or the window unfocused', () => {
    const { store, shown, win, a, live } = setup();
    store.setLayout({ ...layout, version: 2, activeTabId: 'tab2' });
    a.onBinding(live('working', '2026-12-02T01:00:01Z'));
    a.onBinding(live('needs-input', '2026-12-02T01:00:02Z'));
    expect(shown).toEqual([]);
    win.document.focused = false;
    a.onBinding(live('working', '2026-12-02T01:00:03Z'));
    a.onBinding(live('idle', '2026-12-02T01:00:04Z'));
    expect(shown.map((n) => n.title)).toEqual(['Claude Code finished its turn']);
  });

  it('the title counts the agents that need input; states found on load are not news', async () => {
    const found = { terminalId: 't1', paneId: 'p1', agentId: 'claude', agentLabel: 'Claude Code', state: 'needs-input', since: '2026-12-02T01:00:00Z', detail: '' } as AgentState;
    const { store, shown, win, a } = setup([found]);
    await a.load();
    expect(store.get().agentStates.t1?.state).toBe('needs-input');
    expect(shown).toEqual([]);
    expect(win.document.title).toMatch(/^\(1 needs input\) .*Reprise$/);
  });

  it('a bell in a background pane marks it until the pane is in front', () => {
    const { store, a } = setup();
    a.onBell('p0'); // in front: nothing
    expect(store.get().bells).toEqual({});
    a.onBell('p1');
    expect(store.get().bells).toEqual({ p1: true });
    store.setLayout({ ...layout, version: 2, activeTabId: 'tab2' });
    expect(store.get().bells).toEqual({});
  });

  it('OSC notifications from a background pane, unless notifications are off', () => {
    const { store, shown, a } = setup();
    a.onOsc('p0', { title: 'in front', body: '' });
    a.onOsc('p1', { title: 'Build', body: 'done' });
    store.set('notify', { when: 'off', sound: false });
    a.onOsc('p1', { title: 'muted', body: '' });
    expect(shown.map((n) => [n.title, n.body, n.paneId])).toEqual([['Build', 'done', 'p1']]);
  });
});
