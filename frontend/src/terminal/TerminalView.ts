// One xterm.js terminal bound to one host terminal. Every feature is an addon
// activated here and disposed with the view. The view talks to a
// TerminalHost (the Backend facade satisfies it), never to a socket.

import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal as XTerm, type IDisposable } from '@xterm/xterm';
import type { HelloResult, Terminal } from '../api';
import type { Attachment, OutputSink } from '../backend';
import { shortcutFor, type Shortcut } from '../keys';
import { canReadClipboard, openExternal, readClipboard, writeClipboard } from '../platform';
import { FlowControl } from '../stream/flow';
import { InputBatcher } from '../stream/input';
import { pickRenderer } from './renderer';
import { currentScheme, onSchemeChange, themeFor } from './theme';

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
  onTerminal?: (t: Terminal) => void;
  onShortcut?: (s: Shortcut, view: TerminalView) => void;
  onFocus?: () => void;
  onError?: (message: string) => void;
}

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

export class TerminalView {
  readonly term: XTerm;
  readonly paneId: string;
  readonly terminalId: string;
  private readonly opts: TerminalViewOptions;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon({ highlightLimit: 2000 });
  private readonly serialize = new SerializeAddon();
  private webgl: WebglAddon | null = null;
  private readonly disposables: IDisposable[] = [];
  private readonly cleanups: (() => void)[] = [];
  private attachment: Attachment | null = null;
  private flow: FlowControl | null = null;
  /** Bumped on every attach so late callbacks of an older attach do nothing. */
  private attachSeq = 0;
  private readonly input: InputBatcher;
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

  constructor(opts: TerminalViewOptions) {
    this.opts = opts;
    this.paneId = opts.paneId;
    this.terminalId = opts.terminalId;
    this.term = new XTerm({
      allowProposedApi: true, // unicode11 needs it
      fontFamily: '"JetBrains Mono", "Cascadia Mono", "Fira Code", Menlo, "DejaVu Sans Mono", "Liberation Mono", monospace',
      fontSize: 13,
      lineHeight: 1.15,
      scrollback: 10000,
      cursorBlink: true,
      theme: themeFor(currentScheme()),
      macOptionIsMeta: true,
    });
    this.input = new InputBatcher({ send: (p) => this.attachment?.input(p) });
    this.element = document.createElement('div');
    this.element.className = 'terminal-view';
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
    const el = this.element;
    const t = this.term;
    // xterm measures its font on open, so el must be in the document by now.
    t.open(el);

    t.loadAddon(this.fit);
    t.loadAddon(this.search);
    t.loadAddon(this.serialize);
    t.loadAddon(new WebLinksAddon((ev, uri) => {
      ev.preventDefault();
      openExternal(uri);
    }));
    t.loadAddon(new Unicode11Addon());
    t.unicode.activeVersion = '11';
    if (pickRenderer() === 'webgl') this.loadWebgl();

    t.attachCustomKeyEventHandler((ev) => this.onKey(ev));
    this.disposables.push(
      t.onData((d) => this.input.pushData(d)),
      t.onBinary((d) => this.input.pushBinary(d)),
      t.onTitleChange((title) => this.opts.onTitle?.(title)),
      t.onResize(({ cols, rows }) => this.scheduleResize(cols, rows)),
    );
    if (t.textarea) {
      const onFocus = () => this.opts.onFocus?.();
      t.textarea.addEventListener('focus', onFocus);
      this.cleanups.push(() => t.textarea?.removeEventListener('focus', onFocus));
    }
    this.cleanups.push(onSchemeChange((s) => (t.options.theme = themeFor(s))));
    this.cleanups.push(this.opts.host.onHello((_h, reconnected) => {
      if (reconnected) void this.attach(true);
    }));

    this.resizeObserver = new ResizeObserver(() => this.scheduleFit());
    this.resizeObserver.observe(el);
    this.fitNow();
    void this.attach(false);
  }

  focus(): void {
    this.term.focus();
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

  /** The screen serialized with escapes (kept for a later snapshot-on-reattach). */
  serializeScreen(): string {
    return this.serialize.serialize();
  }

  stats(): ViewStats {
    return {
      handle: this.attachment?.live ? this.attachment.handle : null,
      paneId: this.paneId,
      terminalId: this.terminalId,
      ...this.totals,
      renderer: this.webgl ? 'webgl' : 'dom',
    };
  }

  /** incremental: keep the current match while it still matches (search as you type). */
  findNext(query: string, incremental = false): boolean {
    return this.search.findNext(query, { ...this.searchOptions(), incremental });
  }

  findPrevious(query: string): boolean {
    return this.search.findPrevious(query, this.searchOptions());
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
    this.attachSeq++;
    this.detach();
    this.input.clear();
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    cancelAnimationFrame(this.fitFrame);
    this.resizeObserver?.disconnect();
    for (const c of this.cleanups) c();
    for (const d of this.disposables) d.dispose();
    this.webgl?.dispose();
    this.webgl = null;
    // Disposes the remaining addons too.
    this.term.dispose();
    this.element.remove();
  }

  private async attach(clear: boolean): Promise<void> {
    if (this.disposed) return;
    const seq = ++this.attachSeq;
    this.detach();
    if (clear) {
      // RIS through the write queue: anything still queued from the old
      // attachment is drawn first, then wiped, then the replay starts clean.
      this.term.write('\x1bc');
    }
    let att: Attachment | null = null;
    let unsent = 0;
    const flow = new FlowControl({
      sendAck: (n) => {
        this.totals.acked += n;
        if (att) att.ack(n);
        else unsent += n;
      },
    });
    this.flow = flow;
    const sink: OutputSink = (payload) => {
      if (seq !== this.attachSeq) return;
      const n = payload.byteLength;
      flow.onWrite(n);
      this.totals.written += n;
      this.term.write(payload, () => {
        this.totals.rendered += n;
        flow.onRendered(n);
      });
    };
    const { cols, rows } = this.term;
    try {
      // The replay need not hold more lines than xterm keeps: its scrollback and the screen.
      att = await this.opts.host.attach(this.terminalId, cols, rows, sink, (this.term.options.scrollback ?? 1000) + rows);
    } catch (err) {
      if (seq === this.attachSeq) {
        flow.dispose();
        this.opts.onError?.(`attach: ${err instanceof Error ? err.message : String(err)}`);
      }
      return;
    }
    if (seq !== this.attachSeq) {
      att.detach();
      return;
    }
    this.attachment = att;
    this.sentSize = { cols, rows };
    if (unsent > 0) att.ack(unsent);
    this.opts.onTerminal?.(att.terminal);
    // The pane may have been resized while the attach was in flight.
    if (this.term.cols !== cols || this.term.rows !== rows) this.scheduleResize(this.term.cols, this.term.rows);
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

  private loadWebgl(): void {
    try {
      const gl = new WebglAddon();
      gl.onContextLoss(() => {
        // Fall back to the DOM renderer for the rest of this view's life.
        gl.dispose();
        if (this.webgl === gl) this.webgl = null;
      });
      this.term.loadAddon(gl);
      this.webgl = gl;
    } catch (err) {
      console.info('reprise: WebGL unavailable, using the DOM renderer', err);
      this.webgl = null;
    }
  }

  private searchOptions(): ISearchOptions {
    const dark = currentScheme() === 'dark';
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
      this.opts.host.resize(this.terminalId, cols, rows).catch(() => {
        this.sentSize = { cols: 0, rows: 0 };
      });
    }, RESIZE_DEBOUNCE_MS);
  }
}
