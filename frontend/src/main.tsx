// Composition root: transport → backend facade → store and actions → React.

import '@xterm/xterm/css/xterm.css';
import './styles.css';
import './attention/attention.css';
import { createRoot } from 'react-dom/client';
import { Actions } from './actions';
import { Dismissals } from './agents/banner';
import { RestoreDismissals } from './agents/restore';
import { Attention, pickNotifier } from './attention/controller';
import { Backend } from './backend';
import { App } from './components/App';
import { ServicesContext } from './context';
import { Store } from './store';
import { paneOffline } from './terminal/describe';
import { isPageLevel, KeyCatcher, type EarlyRecorder } from './terminal/earlykeys';
import { AppearanceStorage, applyChrome } from './terminal/appearance';
import { ViewRegistry } from './terminal/registry';
import { readStartPanes, saveStartPanes } from './terminal/panesize';
import { panesInOrder } from './layout/layout';
import { TerminalView } from './terminal/TerminalView';
import { StartMarks } from './startmarks';
import { installTestHooks } from './testhooks';
import { installTooltips } from './ui/tooltips';
import { discoverEndpoint } from './transport/endpoint';
import { createSocket } from './transport/socketfactory';
import { WebSocketTransport } from './transport/websocket';
import { noteUserInput } from './stream/feeder';

// The page's start, phase by phase, reported to the host (for benchmarks). Its reports are
// sent only once panes are drawn, long after backend below exists.
const marks = new StartMarks((r) => backend.reportStart(r));
marks.mark('main');
const transport = new WebSocketTransport({
  endpoint: () =>
    discoverEndpoint().then((ep) => {
      marks.mark('endpoint');
      return ep;
    }),
  createSocket: (url) => createSocket(url),
});
const backend = new Backend(transport);
// The page's start: the panes of the layout it showed last attach as soon as the socket is open,
// before the hello (TerminalView.prefetch): their replays then arrive while the page renders
// and opens its terminals. The hello's layout disposes views of panes that are gone and points
// the others at their terminal.
let firstOpen = true;
backend.onSocketOpen = () => {
  marks.mark('socket');
  if (!firstOpen) return;
  firstOpen = false;
  const early = readStartPanes().map((p) => views.acquire(p.paneId, p.terminalId));
  for (const v of early) v.prefetch();
  // The hello waits (briefly) for these replays: the panes then open with their screens. A pane
  // whose terminal the hello names differently (a cold start: the terminals the daemon took
  // with it were re-created) attaches to the new one first, here, not once React has rendered
  // the layout: in WebKit a worker's WebSocket sends wait for the main thread, so an attach
  // asked for just before the render and the opens left only after them (~170 ms, measured).
  if (early.length > 0)
    backend.firstHelloHold = (h) => {
      const now = new Map(h.layout.tabs.flatMap((t) => panesInOrder(t.root)).map((p) => [p.id, p.terminalId]));
      for (const v of early) {
        const tid = now.get(v.paneId);
        if (tid) v.retarget(tid);
      }
      return Promise.all(early.map((v) => v.replayParsed));
    };
};
const store = new Store();
// Settings → Appearance and the zoom, before the first pane is made (TerminalView reads them).
const looks = new AppearanceStorage(localStorageOrNull());
{
  const { appearance, zoom } = looks.load();
  store.set('appearance', appearance);
  store.set('zoom', zoom);
  applyChrome(appearance);
}

// Keys typed while no terminal has the keyboard (the page loading, no pane
// yet, the focus on the page itself) go to the focused pane, in order.
const early = (window as { __repriseEarlyKeys?: EarlyRecorder }).__repriseEarlyKeys;
const keys = new KeyCatcher({
  start: early?.start ?? performance.now(),
  deliver: (data) => {
    const s = store.get();
    const tab = s.layout?.tabs.find((t) => t.id === s.layout?.activeTabId);
    const view = tab ? views.get(tab.focusedPaneId) : undefined;
    if (!view?.isOpen) return false;
    view.type(data);
    return true;
  },
  refuse: (text) => {
    refusedNote = `not sent: “${text}” — typed while the window was opening, its start may be lost`;
    showRefused();
  },
});
// Said in the focused pane, once there is one.
let refusedNote: string | null = null;
function showRefused(): void {
  const s = store.get();
  const tab = s.layout?.tabs.find((t) => t.id === s.layout?.activeTabId);
  if (!refusedNote || !tab) return;
  store.setInputNote(tab.focusedPaneId, refusedNote);
  refusedNote = null;
}

/** Input waits while the host, the daemon or the terminal cannot take it (docs/wire.md). */
const paused = (terminalId: string) => {
  const s = store.get();
  return paneOffline(s.conn, s.daemon, s.terminals[terminalId]) !== null;
};

const views: ViewRegistry = new ViewRegistry((paneId, terminalId) => {
  // The view's terminal can change (restart, resume, recovery): ask it, not terminalId.
  const view: TerminalView = new TerminalView({
    host: backend,
    paneId,
    terminalId,
    onTitle: (t) => store.setTitle(view.terminalId, t),
    onCwd: (c) => store.setCwd(view.terminalId, c),
    onTerminal: (t) => {
      store.putTerminal(t);
      store.setPaneError(paneId, null);
    },
    onShortcut: (s) => actions.shortcut(s, paneId),
    onFocus: () => actions.focusPane(paneId),
    onError: (msg) => store.setPaneError(paneId, msg),
    paused,
    onInputState: (st) => store.setPaneInput(paneId, st),
    onOpened: () => keys.flush(),
    filterInput: (data) => keys.through(data, performance.now()),
    onBell: () => attention.onBell(paneId),
    onNotify: (n) => attention.onOsc(paneId, n),
    appearance: () => ({ appearance: store.get().appearance, zoom: store.get().zoom }),
    cwd: () => store.get().terminals[view.terminalId]?.cwd || undefined,
    onOpenPath: (link) => void actions.openPathLink(link),
    onStartPhase: (phase) => marks.pane(paneId, phase),
    afterStart: () => marks.screensDrawn(),
  });
  return view;
});
const dismissals = new Dismissals(sessionStorageOrNull());
store.set('dismissed', dismissals.load());
const restoreDismissals = new RestoreDismissals(localStorageOrNull());
store.set('restoreDismissed', restoreDismissals.load());
const actions = new Actions(backend, store, views, dismissals, restoreDismissals, looks);
const attention = new Attention(store, backend, actions, pickNotifier(window, (paneId) => actions.revealPane(paneId)));

// Views of panes that left the layout go as soon as the host says so.
let lastLayout = store.get().layout;
store.subscribe(() => {
  const { layout } = store.get();
  if (layout && layout !== lastLayout) {
    views.sync(layout);
    saveStartPanes(layout.tabs.flatMap((t) => panesInOrder(t.root).map((p) => ({ paneId: p.id, terminalId: p.terminalId }))));
    showRefused();
  }
  lastLayout = layout;
});

backend.onState((s) => store.set('conn', s));
backend.onHello((h, reconnected) => {
  marks.mark('hello');
  const panes = h.layout.tabs.flatMap((t) => panesInOrder(t.root));
  marks.expectPanes(panes.map((p) => p.id));
  // The page's start: every pane whose size is known attaches now, before React lays it out
  // (TerminalView.prefetch); a reconnect's panes re-attach themselves.
  if (!reconnected) for (const p of panes) views.acquire(p.id, p.terminalId).prefetch();
  store.setLayout(h.layout, true);
  store.setTerminals(h.terminals ?? []);
  if (h.daemon) store.set('daemon', h.daemon);
  void actions.loadBindings();
  void actions.loadRestore();
  void actions.loadAskpass();
  void attention.load();
});
backend.onLayout((l) => store.setLayout(l));
backend.onTerminal((t) => store.putTerminal(t));
backend.onExit((t) => store.putTerminal(t));
backend.onDaemon((d) => store.set('daemon', d));
backend.onHost((h) => actions.noteHost(h));
backend.onAskpass((p) => actions.noteAskpass(p));
backend.onBinding((b) => {
  actions.noteBinding(b);
  attention.onBinding(b);
});
backend.onRestore((r) => store.set('restore', r));
// Keys that never reached their terminal: its pane says so and refuses the rest of the line.
backend.onInputLost((x) => {
  for (const v of views.all()) if (x.terminalId ? v.terminalId === x.terminalId : v.stats().handle === x.handle) v.inputLost(x.bytes);
});

// Held input goes out as soon as nothing holds it back any more.
let wasPaused = '';
let wasConn = store.get().conn;
store.subscribe(() => {
  const s = store.get();
  if (wasConn === 'open' && s.conn !== 'open') for (const v of views.all()) v.connectionLost();
  wasConn = s.conn;
  const key = `${s.conn}/${s.daemon?.state ?? ''}`;
  if (key === wasPaused) return;
  wasPaused = key;
  for (const v of views.all()) v.flushHeld();
});
backend.onTerminal(() => {
  for (const v of views.all()) v.flushHeld();
});

// Page-level typing: what early-keys.js recorded while the page loaded, then
// keys that reach the document while no field or terminal has the focus.
const takeKey = (ev: KeyboardEvent) => {
  const s = store.get();
  if (ev.defaultPrevented || s.view !== 'terminals' || s.confirm || s.askpass.length > 0 || !isPageLevel(ev.target)) return;
  if (keys.feed({ key: ev.key, code: ev.code, ctrlKey: ev.ctrlKey, shiftKey: ev.shiftKey, altKey: ev.altKey, metaKey: ev.metaKey, t: ev.timeStamp })) {
    ev.preventDefault();
  }
};
const recorded = early?.stop() ?? [];
if (early?.pointer != null) keys.pointer(early.pointer);
for (const k of recorded) keys.feed(k);
document.addEventListener('keydown', takeKey);
// Someone at the keyboard or the mouse: output is parsed in short tasks for a while (feeder.ts),
// and a click before the first key lifts the first-line rule (earlykeys.ts).
for (const type of ['keydown', 'pointerdown', 'wheel'] as const) {
  document.addEventListener(
    type,
    (ev) => {
      noteUserInput();
      if (type === 'pointerdown') keys.pointer(ev.timeStamp);
    },
    { capture: true, passive: true },
  );
}

installTestHooks(store, views, attention, marks);
installTooltips();

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
