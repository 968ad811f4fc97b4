import { describe, expect, it } from 'vitest';
import type { Layout, Terminal } from './api';
import { Actions } from './actions';
import { Backend } from './backend';
import { Store } from './store';
import { ViewRegistry } from './terminal/registry';
import { Emitter, type ConnectionState, type Transport } from './transport/transport';

const layout: Layout = {
  version: 1,
  activeTabId: 'tab1',
  tabs: [
    {
      id: 'tab1',
      title: '',
      focusedPaneId: 'p1',
      root: {
        type: 'split',
        id: 's1',
        direction: 'row',
        sizes: [0.5, 0.5],
        children: [
          { type: 'pane', id: 'p1', terminalId: 't1' },
          { type: 'pane', id: 'p2', terminalId: 't2' },
        ],
      },
    },
  ],
};

function setup(busy: Record<string, string>) {
  const calls: { method: string; params: Record<string, string> }[] = [];
  const t: Transport = {
    state: 'open' as ConnectionState,
    connect: () => Promise.resolve(),
    request: <T,>(method: string, params: unknown) => {
      calls.push({ method, params: params as Record<string, string> });
      if (method === 'terminals.foreground') {
        const cmd = busy[(params as { terminalId: string }).terminalId];
        return Promise.resolve({ busy: Boolean(cmd), command: cmd ?? '' } as T);
      }
      return Promise.resolve(layout as T);
    },
    notify: () => {},
    onEvent: (cb) => new Emitter<[string, unknown]>().on(cb),
    sendBinary: () => {},
    onBinary: (cb) => new Emitter<[Uint8Array]>().on(cb),
    onState: (cb) => new Emitter<[ConnectionState]>().on(cb),
    close: () => {},
  };
  const store = new Store();
  store.setLayout(layout);
  store.setTerminals([{ id: 't1', status: 'running' } as Terminal, { id: 't2', status: 'running' } as Terminal]);
  const actions = new Actions(new Backend(t), store, new ViewRegistry(() => {
    throw new Error('no views in this test');
  }));
  const methods = () => calls.map((c) => c.method);
  return { store, actions, calls, methods };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('Actions', () => {
  it('closes an idle pane without asking', async () => {
    const { actions, store, methods } = setup({});
    await actions.closePane('p2');
    expect(store.get().confirm).toBeNull();
    expect(methods()).toEqual(['terminals.foreground', 'layout.closePane']);
  });

  it('asks before closing a busy pane, and keeps it on cancel', async () => {
    const { actions, store, methods } = setup({ t1: 'vim' });
    const done = actions.closePane(); // the focused pane, p1
    await tick();
    const req = store.get().confirm;
    expect(req?.message).toBe('vim is still running in this pane. Close it?');
    req!.resolve(false);
    await done;
    expect(store.get().confirm).toBeNull();
    expect(methods()).toEqual(['terminals.foreground']);
  });

  it('closes a busy pane once confirmed', async () => {
    const { actions, store, calls } = setup({ t2: 'claude' });
    const done = actions.closePane('p2');
    await tick();
    store.get().confirm!.resolve(true);
    await done;
    expect(calls.at(-1)).toEqual({ method: 'layout.closePane', params: { paneId: 'p2' } });
  });

  it('names every busy command when closing a tab', async () => {
    const { actions, store } = setup({ t1: 'vim', t2: 'npm' });
    const done = actions.closeTab('tab1');
    await tick();
    expect(store.get().confirm?.message).toBe('vim and npm are still running in this tab. Close it?');
    store.get().confirm!.resolve(false);
    await done;
  });

  it('moves focus by direction and order, skipping requests for the pane already focused', async () => {
    const { actions, calls } = setup({});
    actions.focusDirection('right');
    actions.focusDirection('left'); // p1 is still focused in the store's layout
    actions.stepPane(1); // same target as the request in flight
    await tick();
    expect(calls).toEqual([{ method: 'layout.focus', params: { paneId: 'p2' } }]);
  });
});
