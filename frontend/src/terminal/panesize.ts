// Each pane's last size (cols × rows), kept in localStorage, so that the page's next start can
// attach a restored pane as soon as the host's hello names it — before React has laid the pane
// out and xterm.js has measured its cell — with the size its terminal already has (the pty is
// at the size this page last gave it). The replay then arrives while the page is still opening
// its terminals, instead of a round trip after (docs/decisions.md "Start-up: attach at hello").
// A pane without a kept size attaches once it is open, as before.

export interface PaneSize {
  cols: number;
  rows: number;
}

const PREFIX = 'reprise.paneSize.';
/** Sizes outside this are not kept (nor believed when read back). */
const MAX = 1000;

function store(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage disabled
  }
}

function valid(n: number): boolean {
  return Number.isInteger(n) && n >= 2 && n <= MAX;
}

export function readPaneSize(paneId: string, s = store()): PaneSize | null {
  try {
    const m = /^(\d+)x(\d+)$/.exec(s?.getItem(PREFIX + paneId) ?? '');
    if (!m) return null;
    const cols = Number(m[1]);
    const rows = Number(m[2]);
    return valid(cols) && valid(rows) ? { cols, rows } : null;
  } catch {
    return null;
  }
}

export function savePaneSize(paneId: string, size: PaneSize, s = store()): void {
  if (!valid(size.cols) || !valid(size.rows)) return;
  try {
    const v = `${size.cols}x${size.rows}`;
    if (s?.getItem(PREFIX + paneId) !== v) s?.setItem(PREFIX + paneId, v);
  } catch {
    // A full or refused storage: the next start attaches after the open, as without it.
  }
}

export function forgetPaneSize(paneId: string, s = store()): void {
  try {
    s?.removeItem(PREFIX + paneId);
  } catch {
    // as above
  }
}

/** A pane of the last layout this page showed and its terminal (for the next start's attaches). */
export interface StartPane {
  paneId: string;
  terminalId: string;
}

const PANES_KEY = 'reprise.startPanes';
const MAX_PANES = 64;

/** The panes of the layout the page last showed, those with a kept size, at most MAX_PANES. */
export function readStartPanes(s = store()): StartPane[] {
  try {
    const v = JSON.parse(s?.getItem(PANES_KEY) ?? '[]') as unknown;
    if (!Array.isArray(v)) return [];
    return v
      .filter((x): x is StartPane => !!x && typeof x.paneId === 'string' && typeof x.terminalId === 'string')
      .filter((x) => readPaneSize(x.paneId, s) !== null)
      .slice(0, MAX_PANES);
  } catch {
    return [];
  }
}

export function saveStartPanes(panes: StartPane[], s = store()): void {
  try {
    const v = JSON.stringify(panes.slice(0, MAX_PANES).map((p) => ({ paneId: p.paneId, terminalId: p.terminalId })));
    if (s?.getItem(PANES_KEY) !== v) s?.setItem(PANES_KEY, v);
  } catch {
    // as above
  }
}
