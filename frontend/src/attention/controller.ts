// The page's attention wiring: agent states into the store (agents.states after each hello,
// then the agentState that rides on every binding event — no polling), notifications by the
// rule in attention.ts through the browser's Notification API or the desktop window's D-Bus
// binding, bells, and the window title. The decisions are in attention.ts; this file only
// connects them to the store, the page and the platform.

import type { Binding } from '../api';
import { liveAgentLabel } from '../agents/banner';
import { findPane, findPaneByTerminal } from '../layout/layout';
import type { AppState, Store } from '../store';
import { paneTitles } from '../terminal/titles';
import {
  decideNotify,
  infoFromBinding,
  notificationText,
  parseNotifyWhen,
  windowTitle,
  type AgentInfo,
  type NotifyWhen,
  type TurnTrack,
} from './attention';
import type { OscNotification } from './osc';

/** What the controller needs of the host. */
export interface AttentionHost {
  agents: { states(): Promise<import('../api').AgentState[]> };
}

/** What the controller needs of the actions: bring a pane in front. */
export interface AttentionActions {
  revealPane(paneId: string): void;
  getSetting(key: 'notify.when' | 'notify.sound'): Promise<string>;
}

/** Where notifications go: the desktop window's D-Bus binding, or the browser. */
export interface Notifier {
  readonly kind: 'desktop' | 'browser';
  /** Shows one; tag replaces an earlier one with the same tag. */
  show(n: { title: string; body: string; tag: string; paneId: string }): void;
}

/** The page's window as far as notifications go (Notification is absent in some engines). */
interface NotifyWindow {
  Notification?: typeof Notification;
  focus(): void;
}

interface WailsWindow {
  go?: { main?: { App?: { Notify?: (title: string, body: string, paneId: string) => Promise<void> } } };
  runtime?: {
    WindowSetTitle?: (title: string) => void;
    EventsOn?: (name: string, cb: (...data: unknown[]) => void) => () => void;
  };
}

/** The Wails event the Go side emits when a notification's default action is invoked. */
export const NOTIFICATION_EVENT = 'notification:activated';

export function pickNotifier(win: Window, reveal: (paneId: string) => void): Notifier {
  const w = win as unknown as WailsWindow & NotifyWindow;
  let listening = false;
  const listen = () => {
    if (listening || !w.runtime?.EventsOn) return;
    listening = true;
    w.runtime.EventsOn(NOTIFICATION_EVENT, (paneId) => {
      if (typeof paneId === 'string') reveal(paneId);
    });
  };
  listen(); // clicks on notifications shown before a reload come back too
  // Decided at each notification: the window's bindings are injected by Wails before or after this runs.
  return {
    get kind() {
      return w.go?.main?.App?.Notify ? 'desktop' : 'browser';
    },
    show: (n) => {
      const bound = w.go?.main?.App?.Notify;
      if (bound) {
        listen();
        bound(n.title, n.body, n.paneId).catch((err: unknown) => console.warn(`reprise: notify: ${String(err)}`));
        return;
      }
      const N = w.Notification;
      if (typeof N !== 'function' || N.permission !== 'granted') return;
      try {
        const note = new N(n.title, { body: n.body, tag: n.tag });
        note.onclick = () => {
          w.focus();
          reveal(n.paneId);
          note.close();
        };
      } catch (err) {
        console.warn(`reprise: notification: ${String(err)}`);
      }
    },
  };
}

/** The browser's notification permission, or null where there is none (the desktop window needs none). */
export function browserPermission(win: Window = window): NotificationPermission | null {
  const w = win as unknown as WailsWindow & NotifyWindow;
  if (w.go?.main?.App?.Notify) return null;
  return typeof w.Notification === 'function' ? w.Notification.permission : null;
}

/** Asks for the browser's permission (from a user gesture: Settings' button). */
export async function requestBrowserPermission(win: Window = window): Promise<NotificationPermission | null> {
  const N = (win as unknown as NotifyWindow).Notification;
  if (typeof N !== 'function') return null;
  return N.requestPermission();
}

export class Attention {
  private tracks = new Map<string, TurnTrack>();
  private lastTitle = '';
  private audio: AudioContext | null = null;
  /** Notifications raised (for the e2e tests: window.__reprise.notifications()). */
  readonly raised: { title: string; body: string; paneId: string; source: string; at: number }[] = [];

  constructor(
    private readonly store: Store,
    private readonly host: AttentionHost,
    private readonly actions: AttentionActions,
    private readonly notifier: Notifier | null,
    private readonly win: Window = window,
  ) {
    store.subscribe(() => this.onStore());
    const seen = () => this.onStore();
    win.addEventListener('focus', seen);
    win.document.addEventListener('visibilitychange', seen);
  }

  /** After each hello: every pane's agent state, the notification settings. */
  async load(): Promise<void> {
    void this.loadSettings();
    let list;
    try {
      list = await this.host.agents.states();
    } catch (err) {
      console.info(`reprise: agents.states: ${String(err)}`); // an older host
      return;
    }
    const known = new Set<string>();
    for (const a of list) {
      known.add(a.terminalId);
      const prev = this.store.get().agentStates[a.terminalId];
      // A binding event may have come meanwhile; it is newer than the list.
      const info: AgentInfo = prev && prev.state !== a.state && this.tracks.has(a.terminalId) ? prev : { ...a, firstPrompt: prev?.firstPrompt };
      if (info.firstPrompt === undefined) delete info.firstPrompt;
      this.store.putAgentState(a.terminalId, info);
      this.tracks.set(a.terminalId, decideNotify(this.tracks.get(a.terminalId), info.state, { inFront: true, when: this.when, seed: true }).track);
    }
    for (const id of Object.keys(this.store.get().agentStates)) if (!known.has(id) && !this.tracks.has(id)) this.store.putAgentState(id, null);
  }

  async loadSettings(): Promise<void> {
    try {
      const when = parseNotifyWhen(await this.actions.getSetting('notify.when'));
      const sound = (await this.actions.getSetting('notify.sound')) === 'true';
      this.store.set('notify', { when, sound });
    } catch {
      // An older host: the defaults.
    }
  }

  private get when(): NotifyWhen {
    return this.store.get().notify.when;
  }

  /** A binding event: its agentState moves the pane's state, and may raise a notification. */
  onBinding(b: Binding): void {
    const prev = this.store.get().agentStates[b.terminalId];
    const info = infoFromBinding(b, prev);
    this.store.putAgentState(b.terminalId, info);
    if (!info) {
      this.tracks.delete(b.terminalId);
      return;
    }
    const paneId = info.paneId || this.paneOf(b.terminalId);
    const d = decideNotify(this.tracks.get(b.terminalId), info.state, { inFront: !!paneId && this.inFront(paneId), when: this.when });
    this.tracks.set(b.terminalId, d.track);
    if (d.raise && paneId) {
      const t = notificationText(d.raise, info);
      this.raise({ ...t, paneId, tag: `${b.terminalId}/${d.track.turn}/${d.raise}` }, 'agent');
    }
  }

  /** A program in a pane rang the bell: its tab shows it until the pane is seen. */
  onBell(paneId: string): void {
    if (!this.inFront(paneId)) this.store.setBell(paneId, true);
  }

  /** A program in a pane asked for a notification (OSC 9 / 777 / 99). */
  onOsc(paneId: string, n: OscNotification): void {
    if (this.when === 'off' || this.inFront(paneId)) return;
    const s = this.store.get();
    const loc = s.layout && findPane(s.layout, paneId);
    const terminalId = loc ? loc.pane.terminalId : '';
    const fallback = paneTitles.title(paneId, s.terminals[terminalId], s.titles[terminalId], liveAgentLabel(s.bindings[terminalId]));
    this.raise({ title: n.title || fallback, body: n.title ? n.body : n.body || '', paneId, tag: `osc/${paneId}/${Date.now()}` }, 'osc');
  }

  /** Whether the pane is in front of the user: its tab shown, the terminals shown, the window focused and visible. */
  inFront(paneId: string): boolean {
    const s = this.store.get();
    const loc = s.layout && findPane(s.layout, paneId);
    if (!loc || s.layout?.activeTabId !== loc.tab.id || s.view !== 'terminals') return false;
    const doc = this.win.document;
    return doc.visibilityState === 'visible' && doc.hasFocus();
  }

  private paneOf(terminalId: string): string | undefined {
    const l = this.store.get().layout;
    return l ? findPaneByTerminal(l, terminalId)?.pane.id : undefined;
  }

  private raise(n: { title: string; body: string; paneId: string; tag: string }, source: string): void {
    this.raised.push({ title: n.title, body: n.body, paneId: n.paneId, source, at: Date.now() });
    if (this.raised.length > 100) this.raised.shift();
    this.notifier?.show(n);
    if (this.store.get().notify.sound) this.beep();
  }

  private beep(): void {
    try {
      const Ctx = (this.win as unknown as { AudioContext?: typeof AudioContext }).AudioContext;
      if (!Ctx) return;
      this.audio ??= new Ctx();
      const ctx = this.audio;
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, ctx.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start();
      osc.stop(ctx.currentTime + 0.2);
    } catch {
      // No audio: the notification still shows.
    }
  }

  private onStore(): void {
    const s = this.store.get();
    // A bell is cleared once its pane is seen.
    for (const paneId of Object.keys(s.bells)) if (this.inFront(paneId) || !(s.layout && findPane(s.layout, paneId))) this.store.setBell(paneId, false);
    this.setTitle(s);
  }

  private setTitle(s: AppState): void {
    const tab = s.layout?.tabs.find((t) => t.id === s.layout?.activeTabId);
    const pane = tab && s.layout ? findPane(s.layout, tab.focusedPaneId)?.pane : undefined;
    const paneTitle = pane
      ? paneTitles.title(pane.id, s.terminals[pane.terminalId], s.titles[pane.terminalId], liveAgentLabel(s.bindings[pane.terminalId]))
      : '';
    const title = windowTitle(paneTitle, Object.values(s.agentStates).map((a) => a.state));
    if (title === this.lastTitle) return;
    this.lastTitle = title;
    this.win.document.title = title;
    (this.win as unknown as WailsWindow).runtime?.WindowSetTitle?.(title);
  }
}
