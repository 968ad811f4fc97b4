// One xterm.js terminal bound to one host terminal. Every feature is an addon
// activated here and disposed with the view. The view talks to a
// TerminalHost (the Backend facade satisfies it), never to a socket.

import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import type { WebglAddon } from '@xterm/addon-webgl';
import { Terminal as XTerm, type IDisposable } from '@xterm/xterm';
import type { HelloResult, Terminal } from '../api';
import type { Attachment, OutputSink } from '../backend';
import { shortcutFor, type Shortcut } from '../keys';
import { canReadClipboard, openExternal, readClipboard, writeClipboard } from '../platform';
import { FlowControl } from '../stream/flow';
import { WriteFeeder } from '../stream/feeder';
import { InputGate } from '../stream/gate';
import type { GateState } from '../stream/gate';
import { InputBatcher } from '../stream/input';
import { Osc99Parser, parseOsc777, parseOsc9, type OscNotification } from '../attention/osc';
import { DEFAULT_APPEARANCE, schemeOf, terminalOptions, type Appearance } from './appearance';
import { findPathLinks, resolvePath, type PathLink } from './pathlinks';
import { CursorBlinker } from './blink';
import { shareWidths } from './widths';
import { pickRenderer, rendererProbed } from './renderer';
import { loadWebglAddon, webglAddonLoaded, WebglLifecycle } from './webgl';
import { onSchemeChange } from './theme';
import { linkActivates, linkHint } from './links';
import { parseOsc7 } from './titles';
import type { PanePhase } from '../startmarks';
import { readPaneSize, savePaneSize, type PaneSize } from './panesize';

/** What the view needs from the host. */
export interface TerminalHost {
  attach(terminalId: string, cols: number, rows: number, sink: OutputSink, lines?: number): Promise<Attachment>;
  resize(terminalId: string, cols: number, rows: number): Promise<void>;
  onHello(cb: (h: HelloResult, reconnected: boolean) => void): () => void;
}

export interface TerminalViewOptions {
  host: TerminalHost;
  paneId: string;
  terminalId: string;
  onTitle?: (title: string) => void;
  /** The shell reported its directory (OSC 7). */
  onCwd?: (cwd: string) => void;
  onTerminal?: (t: Terminal) => void;
  onShortcut?: (s: Shortcut, view: TerminalView) => void;
  onFocus?: () => void;
  onError?: (message: string) => void;
  /**
   * True while input must not be sent even with a live attachment (the host
   * is unreachable, the pty daemon is restarting, this terminal is lost):
   * it is held instead. Asked before every send.
   */
  paused?: (terminalId: string) => boolean;
  /** What the pane should say about its input and its screen. */
  onInputState?: (s: PaneInputState) => void;
  /** What of the typed text may go to the shell (earlykeys.ts: a line cut at window start is refused). */
  filterInput?: (data: string) => string;
  /** Called once the terminal is open (its xterm exists and takes input). */
  onOpened?: () => void;
  /** The program rang the bell (BEL), outside the replay of old output. */
  onBell?: () => void;
  /** The program asked for a desktop notification (OSC 9 / 777 / 99), outside the replay. */
  onNotify?: (n: OscNotification) => void;
  /** Settings → Appearance and the zoom, as they are now (read at creation; later changes come through setAppearance). */
  appearance?: () => { appearance: Appearance; zoom: number };
  /** The pane's working directory, for relative paths on screen (undefined: unknown). */
  cwd?: () => string | undefined;
  /** A path on screen was Ctrl+clicked (absolute, resolved against cwd; line/col when it said so). */
  onOpenPath?: (link: PathLink & { abs: string }) => void;
  /** The pane's start, phase by phase (startmarks.ts; for benchmarks). */
  onStartPhase?: (phase: PanePhase) => void;
  /**
   * Resolves once the page's start is over (every restored pane's screen drawn). What would
   * delay another pane's screen waits for it: the full scrollback (a long replay) and the WebGL
   * probe (renderer.ts).
   */
  afterStart?: () => Promise<unknown>;
}

/** The search box's toggles. */
export interface SearchFlags {
  caseSensitive?: boolean;
  wholeWord?: boolean;
  regex?: boolean;
}

/** A pane's input and screen, for its header and notices. */
export interface PaneInputState extends GateState {
  /** The screen is the last one seen, not yet redrawn from the host (reconnect, recovery). */
  stale: boolean;
  /** An attach has been waiting for the host's answer for longer than ATTACH_SLOW_MS. */
  attaching: boolean;
}

/**
 * How long an attach may wait for the host's answer before the pane says it is still attaching
 * (an attach takes 5-200 ms here; saying so sooner would flash on every start).
 */
export const ATTACH_SLOW_MS = 1000;

/** How long a re-attach may show the old screen if the host sends no replay at all. */
const STALE_MAX_MS = 1500;
/**
 * An attach first replays only the screen and this many lines above it, so a restored pane is
 * drawn without parsing its whole scrollback first (xterm.js parses ~1 MB/s in a cold
 * WebKitGTK page); once that is drawn, the pane re-attaches for the full replay, which replaces
 * the screen in one write (docs/decisions.md "Start-up: the screen first").
 */
export const FIRST_REPLAY_TAIL = 500;
/** A re-attach's replay is gathered this long (or to this size) before the old screen is replaced. */
const REPLAY_GATHER_MS = 40;
const REPLAY_GATHER_BYTES = 256 * 1024;
const RIS = new Uint8Array([0x1b, 0x63]);

export interface ViewStats {
  handle: number | null;
  paneId: string;
  terminalId: string;
  written: number;
  rendered: number;
  acked: number;
  renderer: 'webgl' | 'dom';
}

const RESIZE_DEBOUNCE_MS = 80;

/**
 * xterm.js 6's scrollbar (VS Code's scrollable element) reveals itself on every scroll and
 * re-arms a fade-out timer each time: once the buffer is full that is a clearTimeout and a
 * setTimeout per line feed, in every pane that prints, shown or hidden — 17 % of the page's
 * busy time while restored panes replay (a profile of a 4-pane start in Chromium). Without the
 * reveal on scroll the scrollbar still shows while the pointer is over the terminal (where the
 * wheel scrolls it) and while its slider is dragged. Reaches into xterm's private viewport
 * (no option for it); a version without it is left as it is.
 */
export function quietScrollbar(t: XTerm): boolean {
  const se = (t as unknown as { _core?: { _viewport?: { _scrollableElement?: { setRevealOnScroll?: (v: boolean) => void } } } })._core?._viewport
    ?._scrollableElement;
  if (typeof se?.setRevealOnScroll !== 'function') return false;
  se.setRevealOnScroll(false);
  return true;
}

export class TerminalView {
  readonly term: XTerm;
  readonly paneId: string;
  private tid: string;
  private readonly opts: TerminalViewOptions;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon({ highlightLimit: 2000 });
  /** WebGL while the pane is visible, the DOM renderer while hidden or after a lost context (webgl.ts). */
  private webgl: WebglLifecycle<WebglAddon> | null = null;
  private visibility: IntersectionObserver | null = null;
  private readonly blinker = new CursorBlinker((off) => this.element.classList.toggle('cursor-blink-off', off));
  private readonly disposables: IDisposable[] = [];
  private readonly cleanups: (() => void)[] = [];
  private attachment: Attachment | null = null;
  private flow: FlowControl | null = null;
  /** Output goes to xterm through this, in slices of a short parse budget (stream/feeder.ts). */
  private readonly feeder: WriteFeeder;
  /** Bumped on every attach so late callbacks of an older attach do nothing. */
  private attachSeq = 0;
  private readonly input: InputBatcher;
  /** Input typed while it could not be delivered (docs/wire.md "Input while not attached"). */
  private readonly gate = new InputGate(
    () => (this.canSend() ? this.attachment : null),
    () => this.reportInput(),
  );
  /** The screen shows an earlier attachment's output until this attach's first output. */
  private stale = false;
  private staleTimer: ReturnType<typeof setTimeout> | null = null;
  /** The current attach is still waiting for the host after ATTACH_SLOW_MS (the pane says so). */
  private attaching = false;
  private attachingTimer: ReturnType<typeof setTimeout> | null = null;
  private lastInputState = '';
  private resizeObserver: ResizeObserver | null = null;
  private fitFrame = 0;
  private resizeTimer: ReturnType<typeof setTimeout> | null = null;
  private sentSize = { cols: 0, rows: 0 };
  /**
   * The terminal lives in this element, which moves between pane hosts: a
   * split re-parents a pane in React's tree, and the terminal (its
   * scrollback, its attachment) must survive that.
   */
  readonly element: HTMLDivElement;
  private opened = false;
  private disposed = false;
  /** Totals over all attachments of this view (for window.__reprise.stats). */
  private totals = { written: 0, rendered: 0, acked: 0 };
  /** Output byte counts (totals.written) where the current attachment's replay starts and ends. */
  private replayStart = 0;
  private replayEnd = Infinity;

  private look: { appearance: Appearance; zoom: number };

  constructor(opts: TerminalViewOptions) {
    this.opts = opts;
    this.paneId = opts.paneId;
    this.tid = opts.terminalId;
    this.look = opts.appearance?.() ?? { appearance: DEFAULT_APPEARANCE, zoom: 0 };
    // The size the pane had last time (its pty has it): a replay fetched before the open is
    // parsed at the size it was drawn for.
    this.keptSize = readPaneSize(opts.paneId);
    this.term = new XTerm({
      allowProposedApi: true, // unicode11 needs it
      macOptionIsMeta: true,
      ...(this.keptSize ?? {}),
      ...terminalOptions(this.look.appearance, this.look.zoom),
      // Never xterm's own blink at first: under the DOM renderer its CSS animation delays every
      // echo by a frame or more (blink.ts). applyBlink gives it to xterm under WebGL only.
      cursorBlink: false,
    });
    this.feeder = new WriteFeeder(this.term);
    this.input = new InputBatcher({ send: (p) => this.send(p) });
    this.element = document.createElement('div');
    this.element.className = 'terminal-view';
  }

  private readonly keptSize: PaneSize | null;
  /** The current attach's work that waits for the open (acknowledging, drawing, the full replay). */
  private whenOpen: (() => void) | null = null;

  /**
   * Attaches now, before the pane is laid out and its terminal opened, if the pane's last size
   * is known (panesize.ts): the page's start asks for every restored pane at hello, so the
   * replays arrive while React and xterm.js are still opening the panes. What arrives is
   * parsed into xterm's buffer, acknowledged to the host only once the terminal is open (the
   * host's "drawn" means shown), and the full scrollback is asked for after that, as for an
   * attach made at the open. Without a kept size, the open attaches (with the fitted size).
   */
  prefetch(): void {
    if (this.disposed || this.opened || this.prefetched || !this.keptSize) return;
    this.prefetched = true;
    void this.attach(false);
  }

  private parsedFirst: () => void = () => {};
  private parsedPromise: Promise<void> = Promise.resolve();
  /**
   * Resolves once the replay of the latest attach made before the open (the start's prefetch,
   * or its retarget to the terminal the hello names) is in xterm's buffer, or that attach failed.
   */
  get replayParsed(): Promise<void> {
    return this.parsedPromise;
  }

  /** Attached before the open (prefetch): the open does not attach again. */
  private prefetched = false;

  /** The host terminal this view shows; a pane's terminal can change (restart, resume, daemon recovery). */
  get terminalId(): string {
    return this.tid;
  }

  /**
   * Shows another terminal in this pane (its old one was replaced): the view,
   * its last screen and its held input stay, and the screen is redrawn from
   * the new terminal's replay when it arrives, so the pane is never blank.
   */
  retarget(terminalId: string): void {
    if (this.disposed || terminalId === this.tid) return;
    this.tid = terminalId;
    this.gate.newTarget();
    // Attached before the open to the pane's old terminal: replaced as for an open pane.
    if (this.opened || this.prefetched) void this.attach(true);
  }

  /** Types data (text as from a keyboard) into this pane, as if xterm had handled the keys. */
  type(data: string): void {
    if (this.disposed || data === '') return;
    this.input.pushData(data);
  }

  /** True once the terminal is open and takes input. */
  get isOpen(): boolean {
    return this.opened && !this.disposed;
  }

  /** Delivers held input if the pane can send now (after a reconnect or when the daemon is back). */
  flushHeld(): void {
    this.gate.flush();
  }

  /** The host could not deliver n bytes typed into this pane (an inputLost event). */
  inputLost(n: number): void {
    this.gate.lost(n);
  }

  /** The connection to the host dropped (keys sent just before may be lost). */
  connectionLost(): void {
    this.gate.connectionLost();
  }

  inputState(): PaneInputState {
    return { ...this.gate.state, stale: this.stale, attaching: this.attaching };
  }

  /** Shows the terminal in host; the first time, opens it and attaches to the host terminal. */
  placeIn(host: HTMLElement): void {
    if (this.disposed) return;
    if (this.element.parentElement !== host) host.appendChild(this.element);
    if (this.opened) this.scheduleFit();
    else this.open();
  }

  /** Takes the terminal out of host (if it is still there); it keeps running. */
  removeFrom(host: HTMLElement): void {
    if (this.element.parentElement === host) host.removeChild(this.element);
  }

  private open(): void {
    this.opened = true;
    this.opts.onStartPhase?.('open');
    const el = this.element;
    const t = this.term;
    // xterm measures its font on open, so el must be in the document by now.
    t.open(el);
    quietScrollbar(t);
    shareWidths(t);

    t.loadAddon(this.fit);
    t.loadAddon(this.search);
    // Links open with Ctrl+click (Cmd on macOS) only; hovering one says so.
    const links = {
      activate: (ev: MouseEvent, uri: string) => {
        if (!linkActivates(ev)) return;
        ev.preventDefault();
        this.hideLinkTip();
        openExternal(uri);
      },
      hover: (ev: MouseEvent) => this.showLinkTip(ev),
      leave: () => this.hideLinkTip(),
    };
    t.loadAddon(new WebLinksAddon(links.activate, { hover: links.hover, leave: links.leave }));
    t.options.linkHandler = { ...links, allowNonHttpProtocols: false };
    t.loadAddon(new Unicode11Addon());
    t.unicode.activeVersion = '11';
    // WebGL's addon is its own chunk, fetched once for the first pane that wants it: a page on
    // the DOM renderer (no GPU, or the preference) never loads it.
    this.webgl = new WebglLifecycle<WebglAddon>(
      false,
      () => {
        const Addon = webglAddonLoaded();
        if (!Addon) throw new Error('the WebGL addon is not loaded');
        return new Addon();
      },
      (gl) => t.loadAddon(gl),
      () => {
        // Back on the DOM renderer: a new one, with a width cache of its own.
        shareWidths(t);
        this.applyBlink();
      },
    );
    this.applyRenderer();
    // Shown or hidden (another tab is active, or the pane is between hosts).
    this.visibility = new IntersectionObserver((entries) => {
      const e = entries[entries.length - 1];
      if (e) this.webgl?.setVisible(e.isIntersecting);
    });
    this.visibility.observe(el);
    this.applyBlink();
    this.disposables.push(
      t.registerLinkProvider({
        provideLinks: (y, cb) => cb(this.pathLinks(y)),
      }),
    );

    t.attachCustomKeyEventHandler((ev) => this.onKey(ev));
    this.disposables.push(
      t.onData((d) => {
        this.blinker.poke();
        const data = this.opts.filterInput ? this.opts.filterInput(d) : d;
        if (data) this.input.pushData(data);
      }),
      t.onBinary((d) => this.input.pushBinary(d)),
      t.onTitleChange((title) => this.opts.onTitle?.(title)),
      t.parser.registerOscHandler(7, (data) => {
        const cwd = parseOsc7(data);
        if (cwd) this.opts.onCwd?.(cwd);
        return true;
      }),
      t.onResize(({ cols, rows }) => this.scheduleResize(cols, rows)),
      t.onBell(() => {
        if (!this.inReplay()) this.opts.onBell?.();
      }),
    );
    // Notifications asked for by the program; old ones replayed on attach are history.
    const kitty = new Osc99Parser();
    const notify = (n: OscNotification | null) => {
      if (n && !this.inReplay()) this.opts.onNotify?.(n);
      return true;
    };
    this.disposables.push(
      t.parser.registerOscHandler(9, (d) => notify(parseOsc9(d))),
      t.parser.registerOscHandler(777, (d) => (d.startsWith('notify;') ? notify(parseOsc777(d)) : false)),
      t.parser.registerOscHandler(99, (d) => notify(kitty.feed(d))),
    );
    if (t.textarea) {
      const onFocus = () => {
        this.blinker.setFocused(true);
        this.opts.onFocus?.();
      };
      const onBlur = () => this.blinker.setFocused(false);
      this.blinker.setFocused(document.activeElement === t.textarea);
      t.textarea.addEventListener('focus', onFocus);
      t.textarea.addEventListener('blur', onBlur);
      this.cleanups.push(() => {
        t.textarea?.removeEventListener('focus', onFocus);
        t.textarea?.removeEventListener('blur', onBlur);
      });
    }
    this.cleanups.push(onSchemeChange(() => this.setAppearance(this.look.appearance, this.look.zoom)));
    this.cleanups.push(this.opts.host.onHello((_h, reconnected) => {
      if (reconnected) void this.attach(true);
    }));

    this.resizeObserver = new ResizeObserver(() => this.scheduleFit());
    this.resizeObserver.observe(el);
    this.fitNow();
    this.opts.onStartPhase?.('opened');
    // Attached already (prefetch): what waited for the open goes now. (A failed early attach
    // cleared prefetched; one whose connection has gone since is made again, its start wiped.)
    if (!this.prefetched) void this.attach(false);
    else if (this.attachment && !this.attachment.live) void this.attach(true);
    else this.whenOpen?.();
    this.opts.onOpened?.();
  }

  focus(): void {
    this.term.focus();
  }

  /**
   * Applies Settings → Appearance and the zoom to this open pane: options change in place (the
   * buffer stays), the renderer is swapped when asked for, and the pane refits to its new cell size.
   */
  setAppearance(appearance: Appearance, zoom: number): void {
    if (this.disposed) return;
    this.look = { appearance, zoom };
    const o = terminalOptions(appearance, zoom);
    const t = this.term;
    for (const [k, v] of Object.entries(o) as [keyof typeof o, unknown][]) {
      if (k === 'cursorBlink') continue; // applyBlink's
      if (t.options[k] !== v) (t.options as Record<string, unknown>)[k] = v;
    }
    if (this.opened) {
      this.applyRenderer();
      this.applyBlink();
      this.scheduleFit();
    }
  }

  selectAll(): void {
    this.term.selectAll();
  }

  /** Clears the screen and scrollback of this view (the shell is not told; its next prompt is drawn as usual). */
  clear(): void {
    this.term.clear();
  }

  private pathLinks(y: number): import('@xterm/xterm').ILink[] | undefined {
    const line = this.term.buffer.active.getLine(y - 1);
    if (!line) return undefined;
    const text = line.translateToString(true);
    const cwd = this.opts.cwd?.();
    const out: import('@xterm/xterm').ILink[] = [];
    for (const m of findPathLinks(text)) {
      const abs = resolvePath(m.path, cwd);
      if (!abs) continue;
      out.push({
        // Columns are 1-based and inclusive; one char per cell is assumed (wide chars shift a path right of them).
        range: { start: { x: m.start + 1, y }, end: { x: m.end, y } },
        text: m.text,
        decorations: { underline: true, pointerCursor: true },
        hover: (ev) => this.showLinkTip(ev),
        leave: () => this.hideLinkTip(),
        activate: (ev) => {
          // Ctrl (Cmd) + click only: a plain click focuses or selects.
          if (!(ev.ctrlKey || ev.metaKey)) return;
          ev.preventDefault();
          this.opts.onOpenPath?.({ ...m, abs });
        },
      });
    }
    return out.length ? out : undefined;
  }

  private linkTip: HTMLDivElement | null = null;

  private showLinkTip(ev: MouseEvent): void {
    if (this.disposed) return;
    const tip = this.linkTip ?? document.createElement('div');
    tip.className = 'link-tooltip';
    tip.setAttribute('role', 'tooltip');
    tip.dataset.testid = 'link-tooltip';
    tip.textContent = linkHint();
    const r = this.element.getBoundingClientRect();
    // Under the pointer's row, kept inside the pane.
    tip.style.left = `${Math.max(0, Math.min(ev.clientX - r.left + 8, r.width - 150))}px`;
    tip.style.top = `${Math.min(ev.clientY - r.top + 18, Math.max(0, r.height - 24))}px`;
    if (!this.linkTip) {
      this.element.appendChild(tip);
      this.linkTip = tip;
    }
  }

  private hideLinkTip(): void {
    this.linkTip?.remove();
    this.linkTip = null;
  }

  /** The active buffer as text: all lines, each trimmed right, trailing blank lines dropped. */
  text(): string {
    return this.lines(0);
  }

  /** The last n lines of text() (cheap: reads only the end of the buffer). */
  tail(n: number): string {
    const buf = this.term.buffer.active;
    // Blank rows under the cursor are trimmed, so read a screen's worth more.
    return this.lines(Math.max(0, buf.length - n - this.term.rows)).split('\n').slice(-n).join('\n');
  }

  private lines(from: number): string {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = from; i < buf.length; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\s+$/, '');
  }

  /** The screen serialized with escapes (kept for a later snapshot-on-reattach; its addon is loaded on first use). */
  async serializeScreen(): Promise<string> {
    if (!this.serializer) {
      const { SerializeAddon } = await import('@xterm/addon-serialize');
      if (this.disposed) return '';
      this.serializer = new SerializeAddon();
      this.term.loadAddon(this.serializer);
    }
    return this.serializer.serialize();
  }

  private serializer: import('@xterm/addon-serialize').SerializeAddon | null = null;

  /**
   * Settings → Appearance's renderer: at once where it is known; "auto" before the page's WebGL
   * probe opens on the DOM renderer and follows the probe once it is made, after the start's
   * screens are drawn (renderer.ts rendererProbed: the probe is slow in WebKit).
   */
  private applyRenderer(): void {
    const now = pickRenderer(this.look.appearance.renderer);
    if (now) {
      this.wantWebgl(now === 'webgl');
      return;
    }
    this.wantWebgl(false);
    void rendererProbed(this.opts.afterStart?.()).then(() => {
      if (!this.disposed && this.opened) this.applyRenderer();
    });
  }

  /** Settings asked for WebGL (or the DOM renderer): its addon is fetched first if need be. */
  private webglWanted = false;
  private wantWebgl(want: boolean): void {
    this.webglWanted = want;
    if (!want || webglAddonLoaded()) {
      this.webgl?.setWanted(want);
      return;
    }
    loadWebglAddon().then(
      () => {
        if (!this.disposed && this.webglWanted) this.webgl?.setWanted(true);
      },
      (err) => console.info('reprise: the WebGL addon did not load, using the DOM renderer', err),
    );
  }

  stats(): ViewStats {
    return {
      handle: this.attachment?.live ? this.attachment.handle : null,
      paneId: this.paneId,
      terminalId: this.terminalId,
      ...this.totals,
      renderer: this.webgl?.current ? 'webgl' : 'dom',
    };
  }

  /** incremental: keep the current match while it still matches (search as you type). */
  findNext(query: string, incremental = false, flags: SearchFlags = {}): boolean {
    this.noteFlags(flags);
    return this.search.findNext(query, { ...this.searchOptions(), ...flags, incremental });
  }

  findPrevious(query: string, flags: SearchFlags = {}): boolean {
    this.noteFlags(flags);
    return this.search.findPrevious(query, { ...this.searchOptions(), ...flags });
  }

  private lastFlags = '';

  /**
   * addon-search 0.16 stores the new options before comparing them with the last ones, so a
   * changed toggle with the same query kept the old highlights and counts; forgetting its cached
   * term makes it highlight (and count) again.
   */
  private noteFlags(flags: SearchFlags): void {
    const key = `${!!flags.caseSensitive}/${!!flags.wholeWord}/${!!flags.regex}`;
    if (key !== this.lastFlags && this.lastFlags !== '') this.search.clearDecorations();
    this.lastFlags = key;
  }

  clearSearch(): void {
    this.search.clearDecorations();
  }

  onSearchResults(cb: (index: number, count: number) => void): () => void {
    const d = this.search.onDidChangeResults((r) => cb(r.resultIndex, r.resultCount));
    return () => d.dispose();
  }

  async copySelection(): Promise<void> {
    const text = this.term.getSelection();
    if (text) await writeClipboard(text);
  }

  async paste(): Promise<void> {
    const text = await readClipboard();
    if (text) this.term.paste(text);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.parsedFirst();
    this.attachSeq++;
    this.detach();
    this.input.clear();
    this.gate.clear();
    if (this.staleTimer) clearTimeout(this.staleTimer);
    if (this.attachingTimer) clearTimeout(this.attachingTimer);
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    cancelAnimationFrame(this.fitFrame);
    this.resizeObserver?.disconnect();
    for (const c of this.cleanups) c();
    for (const d of this.disposables) d.dispose();
    this.blinker.dispose();
    this.visibility?.disconnect();
    this.webgl?.dispose();
    this.webgl = null;
    this.feeder.dispose();
    // Disposes the remaining addons too.
    this.term.dispose();
    this.element.remove();
  }

  /**
   * Attaches to the host terminal. first: replay only the screen and FIRST_REPLAY_TAIL lines,
   * then (if that was all it asked for) re-attach for everything xterm keeps. quiet: the old
   * screen is not dimmed meanwhile (it is the same output, about to get its scrollback).
   */
  private async attach(clear: boolean, first = true, quiet = false): Promise<void> {
    if (this.disposed) return;
    const seq = ++this.attachSeq;
    if (!this.opened) {
      // A newer attach before the open: whoever waits for the replay waits for this one's.
      const before = this.parsedFirst;
      this.parsedPromise = new Promise((r) => (this.parsedFirst = r));
      before();
    }
    this.detach();
    this.watchAttach(seq);
    // Until the host says how long the replay is, everything is replay.
    this.replayStart = this.totals.written;
    this.replayEnd = Infinity;
    // A re-attach (reconnect, another terminal in this pane) keeps the old
    // screen, dimmed, until the replay arrives: the RIS that wipes it goes
    // through the write queue just before the replay's first bytes, so the
    // pane is never drawn blank in between.
    let pendingClear = clear;
    if (clear && !quiet) this.setStale(true);
    let att: Attachment | null = null;
    // Acknowledged only once attached and open: before the open, parsed is not shown.
    let unsent = 0;
    const sendAcks = () => {
      if (!att || !this.opened || unsent === 0 || seq !== this.attachSeq) return;
      // With what is left to draw, which the daemon's window follows (docs/wire.md "Flow control").
      att.ack(unsent, this.feeder.drainRate, Math.max(0, this.totals.written - this.totals.rendered));
      unsent = 0;
    };
    const flow = new FlowControl({
      sendAck: (n) => {
        this.totals.acked += n;
        unsent += n;
        sendAcks();
      },
    });
    this.flow = flow;
    const { cols, rows } = this.term;
    // The replay need not hold more lines than xterm keeps: its scrollback and the screen.
    const full = (this.term.options.scrollback ?? 1000) + rows;
    const lines = first ? Math.min(full, rows + FIRST_REPLAY_TAIL) : full;
    // Line feeds in the replay: as many as asked for means the host may have had more.
    let replayLFs = 0;
    let upgraded = lines >= full;
    let drawn = false;
    const phase = this.opts.onStartPhase;
    const maybeUpgrade = () => {
      if (seq !== this.attachSeq || this.totals.rendered < this.replayEnd) return;
      phase?.(quiet ? 'parsedFull' : 'parsed');
      this.parsedFirst();
      if (!this.opened) return;
      if (!drawn) {
        drawn = true;
        phase?.(quiet ? 'full' : 'drawn');
        if (!quiet && (upgraded || replayLFs < lines - 1)) phase?.('full');
      }
      if (upgraded) return;
      upgraded = true;
      if (replayLFs < lines - 1) return;
      const upgrade = () => {
        if (seq !== this.attachSeq || this.disposed) return;
        // What was drawn is acknowledged before this attachment goes (the host counts it).
        flow.flush();
        void this.attach(true, false, true);
      };
      const after = this.opts.afterStart?.();
      if (after) void after.then(upgrade, upgrade);
      else upgrade();
    };
    const write = (payload: Uint8Array, extra = 0) => {
      const n = payload.byteLength - extra;
      flow.onWrite(n);
      if (!upgraded && this.totals.written < this.replayEnd) {
        const inReplay = Math.min(n, this.replayEnd - this.totals.written);
        for (let i = extra; i < extra + inReplay; i++) if (payload[i] === 0x0a) replayLFs++;
      }
      this.totals.written += n;
      this.blinker.poke();
      // The RIS and the replay gathered with it are parsed in one go (no frame in between).
      this.feeder.push(
        payload,
        (k) => {
          this.totals.rendered += k;
          flow.onRendered(k);
          // Nothing more to draw: acknowledge it all now, not after the idle timer. The daemon's
          // window is small (docs/wire.md "Flow control"); a remainder under ACK_BYTES held
          // for 50 ms would hold back the next bytes while the page sits idle.
          if (this.feeder.queued === 0) flow.flush();
          maybeUpgrade();
        },
        extra > 0 ? { uncounted: extra, whole: true } : undefined,
      );
    };
    // The replay's first frames, gathered while the old screen still shows:
    // the RIS and they go to xterm as one chunk, which it parses in one go,
    // so no frame is drawn between the wipe and the restored text.
    let early: Uint8Array[] = [];
    let earlyBytes = 0;
    let earlyTimer: ReturnType<typeof setTimeout> | null = null;
    const clearNow = () => {
      if (!pendingClear || seq !== this.attachSeq) return;
      pendingClear = false;
      if (earlyTimer) clearTimeout(earlyTimer);
      earlyTimer = null;
      const all = new Uint8Array(RIS.byteLength + earlyBytes);
      all.set(RIS, 0);
      let off = RIS.byteLength;
      for (const c of early) {
        all.set(c, off);
        off += c.byteLength;
      }
      early = [];
      write(all, RIS.byteLength);
      this.setStale(false);
    };
    const sink: OutputSink = (payload) => {
      if (seq !== this.attachSeq) return;
      if (pendingClear) {
        early.push(payload.slice());
        earlyBytes += payload.byteLength;
        // The full replay after the first one replaces a screen that already shows the same
        // output: it goes to xterm whole, so no frame shows a part of it.
        if (quiet) {
          if (earlyBytes >= this.replayEnd - this.replayStart) clearNow();
          return;
        }
        if (earlyBytes >= REPLAY_GATHER_BYTES) clearNow();
        else if (!earlyTimer) earlyTimer = setTimeout(clearNow, REPLAY_GATHER_MS);
        return;
      }
      write(payload);
    };
    phase?.(quiet ? 'attachFull' : 'attach');
    try {
      att = await this.opts.host.attach(this.terminalId, cols, rows, sink, lines);
    } catch (err) {
      if (seq === this.attachSeq) this.attachAnswered();
      if (seq === this.attachSeq && this.prefetched && !this.opened && !clear) {
        // The start's early attach (the pane's terminal from the last layout) failed: the open
        // attaches as usual, to the terminal the hello names, and says so if that fails too.
        this.prefetched = false;
        this.parsedFirst();
        flow.dispose();
        return;
      }
      if (seq === this.attachSeq) {
        this.parsedFirst();
        flow.dispose();
        // The screen stays as it was (dimmed): the next hello re-attaches.
        this.opts.onError?.(`attach: ${err instanceof Error ? err.message : String(err)}`);
      }
      return;
    }
    if (seq !== this.attachSeq) {
      att.detach();
      return;
    }
    this.attachAnswered();
    this.attachment = att;
    phase?.(quiet ? 'attachedFull' : 'attached');
    this.replayEnd = this.replayStart + att.replayBytes;
    this.whenOpen = () => {
      if (seq !== this.attachSeq) return;
      sendAcks();
      maybeUpgrade();
    };
    // The replay may already be drawn (or be empty).
    maybeUpgrade();
    if (quiet && pendingClear && earlyBytes >= att.replayBytes && att.replayBytes > 0) clearNow();
    this.sentSize = { cols, rows };
    savePaneSize(this.paneId, { cols, rows });
    sendAcks();
    this.opts.onTerminal?.(att.terminal);
    // Keys typed while this pane was not attached go first, in order.
    this.flushHeld();
    if (pendingClear) {
      // No replay yet; a terminal with nothing to replay sends none at all.
      if (this.staleTimer) clearTimeout(this.staleTimer);
      this.staleTimer = setTimeout(() => {
        this.staleTimer = null;
        clearNow();
      }, STALE_MAX_MS);
    }
    // The pane may have been resized while the attach was in flight.
    if (this.term.cols !== cols || this.term.rows !== rows) this.scheduleResize(this.term.cols, this.term.rows);
  }

  /** Whether xterm is parsing the replay of old output (its bells and notifications are history). */
  private inReplay(): boolean {
    return this.totals.rendered < this.replayEnd;
  }

  private canSend(): boolean {
    return !!this.attachment?.live && !this.opts.paused?.(this.tid);
  }

  /** Sends typed bytes now, or holds them in order until the pane can send. */
  private send(payload: Uint8Array): void {
    this.gate.send(payload);
  }

  /** Starts the clock after which attach seq, still unanswered, is said in the pane. */
  private watchAttach(seq: number): void {
    if (this.attachingTimer) clearTimeout(this.attachingTimer);
    this.attachingTimer = setTimeout(() => {
      this.attachingTimer = null;
      if (seq !== this.attachSeq || this.disposed) return;
      this.attaching = true;
      this.reportInput();
    }, ATTACH_SLOW_MS);
  }

  /** The current attach has its answer (attached or failed): nothing more to say of it. */
  private attachAnswered(): void {
    if (this.attachingTimer) clearTimeout(this.attachingTimer);
    this.attachingTimer = null;
    if (!this.attaching) return;
    this.attaching = false;
    this.reportInput();
  }

  private setStale(stale: boolean): void {
    if (this.stale === stale) return;
    this.stale = stale;
    if (!stale && this.staleTimer) {
      clearTimeout(this.staleTimer);
      this.staleTimer = null;
    }
    this.reportInput();
  }

  private reportInput(): void {
    const s = this.inputState();
    const key = `${s.held}/${s.refused}/${s.cut}/${s.broken}/${s.lost}/${s.stale}/${s.attaching}`;
    if (key === this.lastInputState) return;
    this.lastInputState = key;
    this.opts.onInputState?.(s);
  }

  private detach(): void {
    this.flow?.dispose();
    this.flow = null;
    this.attachment?.detach();
    this.attachment = null;
  }

  private onKey(ev: KeyboardEvent): boolean {
    const s = shortcutFor(ev);
    if (!s) return true;
    // Without a readable clipboard API, let the browser's own paste through.
    if (s === 'paste' && !canReadClipboard()) return true;
    if (ev.type === 'keydown') {
      ev.preventDefault();
      this.opts.onShortcut?.(s, this);
    }
    return false;
  }

  /** The blink goes to xterm.js under WebGL (a JS timer there) and to blink.ts under the DOM renderer. */
  private applyBlink(): void {
    if (this.disposed) return;
    const blink = this.look.appearance.cursorBlink;
    const gl = !!this.webgl?.current;
    if (this.term.options.cursorBlink !== (blink && gl)) this.term.options.cursorBlink = blink && gl;
    this.blinker.setEnabled(blink && !gl);
  }

  private searchOptions(): ISearchOptions {
    const dark = schemeOf(this.look.appearance.theme) === 'dark';
    return {
      decorations: {
        matchBackground: dark ? '#515c6a' : '#f6e3a6',
        activeMatchBackground: dark ? '#9e6a03' : '#ffb24d',
        matchOverviewRuler: '#d18616',
        activeMatchColorOverviewRuler: '#ffb24d',
      },
    };
  }

  private scheduleFit(): void {
    cancelAnimationFrame(this.fitFrame);
    this.fitFrame = requestAnimationFrame(() => this.fitNow());
  }

  private fitNow(): void {
    const el = this.element;
    // Hidden (inactive tab, or between hosts): keep the last size until shown again.
    if (this.disposed || !this.opened || el.clientWidth === 0 || el.clientHeight === 0) return;
    try {
      this.fit.fit();
    } catch {
      // Not rendered yet.
    }
  }

  private scheduleResize(cols: number, rows: number): void {
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = null;
      if (!this.attachment?.live) return;
      if (cols === this.sentSize.cols && rows === this.sentSize.rows) return;
      this.sentSize = { cols, rows };
      savePaneSize(this.paneId, { cols, rows });
      this.opts.host.resize(this.terminalId, cols, rows).catch(() => {
        this.sentSize = { cols: 0, rows: 0 };
      });
    }, RESIZE_DEBOUNCE_MS);
  }
}
