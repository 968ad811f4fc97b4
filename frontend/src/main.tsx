// Composition root: transport → backend facade → store and actions → React.

import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { createRoot } from 'react-dom/client';
import { Actions } from './actions';
import { Dismissals } from './agents/banner';
import { RestoreDismissals } from './agents/restore';
import { Backend } from './backend';
import { App } from './components/App';
import { ServicesContext } from './context';
import { Store } from './store';
import { ViewRegistry } from './terminal/registry';
import { TerminalView } from './terminal/TerminalView';
import { installTestHooks } from './testhooks';
import { discoverEndpoint } from './transport/endpoint';
import { createSocket } from './transport/socketfactory';
import { WebSocketTransport } from './transport/websocket';

const transport = new WebSocketTransport({ endpoint: () => discoverEndpoint(), createSocket: (url) => createSocket(url) });
const backend = new Backend(transport);
const store = new Store();
const views: ViewRegistry = new ViewRegistry(
  (paneId, terminalId) =>
    new TerminalView({
      host: backend,
      paneId,
      terminalId,
      onTitle: (t) => store.setTitle(terminalId, t),
      onTerminal: (t) => {
        store.putTerminal(t);
        store.setPaneError(paneId, null);
      },
      onShortcut: (s) => actions.shortcut(s, paneId),
      onFocus: () => actions.focusPane(paneId),
      onError: (msg) => store.setPaneError(paneId, msg),
    }),
);
const dismissals = new Dismissals(sessionStorageOrNull());
store.set('dismissed', dismissals.load());
const restoreDismissals = new RestoreDismissals(localStorageOrNull());
store.set('restoreDismissed', restoreDismissals.load());
const actions = new Actions(backend, store, views, dismissals, restoreDismissals);

// Views of panes that left the layout go as soon as the host says so.
let lastLayout = store.get().layout;
store.subscribe(() => {
  const { layout } = store.get();
  if (layout && layout !== lastLayout) views.sync(layout);
  lastLayout = layout;
});

backend.onState((s) => store.set('conn', s));
backend.onHello((h) => {
  store.setLayout(h.layout, true);
  store.setTerminals(h.terminals ?? []);
  if (h.daemon) store.set('daemon', h.daemon);
  void actions.loadBindings();
  void actions.loadRestore();
});
backend.onLayout((l) => store.setLayout(l));
backend.onTerminal((t) => store.putTerminal(t));
backend.onExit((t) => store.putTerminal(t));
backend.onDaemon((d) => store.set('daemon', d));
backend.onBinding((b) => actions.noteBinding(b));
backend.onRestore((r) => store.set('restore', r));

installTestHooks(store, views);

const root = document.getElementById('root');
if (!root) throw new Error('no #root');
createRoot(root).render(
  <ServicesContext.Provider value={{ backend, store, actions, views }}>
    <App />
  </ServicesContext.Provider>,
);

void backend.start();

function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

function localStorageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
