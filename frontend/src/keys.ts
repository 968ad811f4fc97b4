// Every action the user can take, with its keyboard shortcuts, in one table: the key handler,
// the command palette, the context menus, the tooltips and the help popover all read COMMANDS.
// Only the chords bound here are taken from the terminal; everything else (Ctrl+C, Ctrl+D,
// Alt+letters, Ctrl+_ …) goes to the pty.

export type Shortcut =
  | 'newTab'
  | 'newTabOnHost'
  | 'splitRight'
  | 'splitDown'
  | 'closePane'
  | 'closeTab'
  | 'closeOtherTabs'
  | 'renameTab'
  | 'moveTabLeft'
  | 'moveTabRight'
  | 'nextTab'
  | 'prevTab'
  | 'goToTab1'
  | 'goToTab2'
  | 'goToTab3'
  | 'goToTab4'
  | 'goToTab5'
  | 'goToTab6'
  | 'goToTab7'
  | 'goToTab8'
  | 'goToLastTab'
  | 'nextPane'
  | 'prevPane'
  | 'focusLeft'
  | 'focusRight'
  | 'focusUp'
  | 'focusDown'
  | 'search'
  | 'copy'
  | 'paste'
  | 'selectAll'
  | 'clear'
  | 'zoomIn'
  | 'zoomOut'
  | 'zoomReset'
  | 'palette'
  | 'newAgent'
  | 'appearance'
  | 'hostsSettings'
  | 'settings'
  | 'sessions'
  | 'agents';

export interface Command {
  id: Shortcut;
  /** What the palette and the menus call it. */
  title: string;
  /** Chords, the first one shown: modifiers in the order Ctrl, Shift, Alt, then the key. */
  keys: readonly string[];
  /** Also offered while Settings or Sessions cover the terminals (else the palette goes back to them first). */
  anyView?: boolean;
  /** Left out of the palette (the numbered tab jumps: one row in help says them all). */
  hidden?: boolean;
}

export const COMMANDS: readonly Command[] = [
  { id: 'palette', title: 'Command palette', keys: ['Ctrl+Shift+P'], anyView: true },
  { id: 'newTab', title: 'New tab', keys: ['Ctrl+Shift+T'], anyView: true },
  { id: 'newTabOnHost', title: 'New tab on host…', keys: [], anyView: true },
  { id: 'newAgent', title: 'New agent…', keys: ['Ctrl+Shift+N'], anyView: true },
  { id: 'splitRight', title: 'Split right', keys: ['Ctrl+Shift+D'] },
  { id: 'splitDown', title: 'Split down', keys: ['Ctrl+Shift+E'] },
  { id: 'closePane', title: 'Close pane', keys: ['Ctrl+Shift+W'] },
  { id: 'closeTab', title: 'Close tab', keys: [] },
  { id: 'closeOtherTabs', title: 'Close other tabs', keys: [] },
  { id: 'renameTab', title: 'Rename tab…', keys: [] },
  { id: 'moveTabLeft', title: 'Move tab left', keys: ['Ctrl+Shift+PageUp'] },
  { id: 'moveTabRight', title: 'Move tab right', keys: ['Ctrl+Shift+PageDown'] },
  { id: 'nextTab', title: 'Next tab', keys: ['Ctrl+Tab', 'Ctrl+PageDown'], anyView: true },
  { id: 'prevTab', title: 'Previous tab', keys: ['Ctrl+Shift+Tab', 'Ctrl+PageUp'], anyView: true },
  { id: 'goToTab1', title: 'Go to tab 1', keys: ['Alt+1'], anyView: true, hidden: true },
  { id: 'goToTab2', title: 'Go to tab 2', keys: ['Alt+2'], anyView: true, hidden: true },
  { id: 'goToTab3', title: 'Go to tab 3', keys: ['Alt+3'], anyView: true, hidden: true },
  { id: 'goToTab4', title: 'Go to tab 4', keys: ['Alt+4'], anyView: true, hidden: true },
  { id: 'goToTab5', title: 'Go to tab 5', keys: ['Alt+5'], anyView: true, hidden: true },
  { id: 'goToTab6', title: 'Go to tab 6', keys: ['Alt+6'], anyView: true, hidden: true },
  { id: 'goToTab7', title: 'Go to tab 7', keys: ['Alt+7'], anyView: true, hidden: true },
  { id: 'goToTab8', title: 'Go to tab 8', keys: ['Alt+8'], anyView: true, hidden: true },
  { id: 'goToLastTab', title: 'Go to the last tab', keys: ['Alt+9'], anyView: true },
  { id: 'nextPane', title: 'Next pane', keys: ['Ctrl+Shift+]'] },
  { id: 'prevPane', title: 'Previous pane', keys: ['Ctrl+Shift+['] },
  { id: 'focusLeft', title: 'Focus the pane on the left', keys: ['Alt+ArrowLeft'] },
  { id: 'focusRight', title: 'Focus the pane on the right', keys: ['Alt+ArrowRight'] },
  { id: 'focusUp', title: 'Focus the pane above', keys: ['Alt+ArrowUp'] },
  { id: 'focusDown', title: 'Focus the pane below', keys: ['Alt+ArrowDown'] },
  { id: 'search', title: 'Find in pane', keys: ['Ctrl+Shift+F'] },
  { id: 'copy', title: 'Copy', keys: ['Ctrl+Shift+C'] },
  { id: 'paste', title: 'Paste', keys: ['Ctrl+Shift+V'] },
  // Ctrl+Shift+A is the Agents overview's; Select all is in the pane menu and the palette.
  { id: 'selectAll', title: 'Select all', keys: [] },
  { id: 'clear', title: 'Clear the pane', keys: ['Ctrl+Shift+K'] },
  // Ctrl+Shift+= too: "Ctrl++" on a US keyboard; the numpad's + and - count as = and -.
  { id: 'zoomIn', title: 'Zoom in (bigger font)', keys: ['Ctrl+=', 'Ctrl+Shift+='], anyView: true },
  { id: 'zoomOut', title: 'Zoom out (smaller font)', keys: ['Ctrl+-'], anyView: true },
  { id: 'zoomReset', title: 'Reset zoom', keys: ['Ctrl+0'], anyView: true },
  { id: 'appearance', title: 'Settings: Appearance', keys: [], anyView: true },
  { id: 'hostsSettings', title: 'Settings: Hosts', keys: [], anyView: true },
  { id: 'settings', title: 'Settings', keys: ['Ctrl+,'], anyView: true },
  { id: 'sessions', title: 'Agent sessions', keys: ['Ctrl+Shift+S'], anyView: true },
  { id: 'agents', title: 'Agents overview', keys: ['Ctrl+Shift+A'], anyView: true },
];

const BY_ID = new Map(COMMANDS.map((c) => [c.id, c]));
const BY_CHORD = new Map<string, Shortcut>();
for (const c of COMMANDS) for (const k of c.keys) BY_CHORD.set(k, c.id);

export function command(id: Shortcut): Command {
  const c = BY_ID.get(id);
  if (!c) throw new Error(`no command ${id}`);
  return c;
}

/** The shortcut shown for an action ("" when it has none), for tooltips and menus. */
export function keyLabel(id: Shortcut): string {
  return BY_ID.get(id)?.keys[0] ?? '';
}

/** "Split right (Ctrl+Shift+D)": a tooltip naming the shortcut. */
export function tooltip(id: Shortcut, title = command(id).title): string {
  const k = keyLabel(id);
  return k ? `${title} (${k})` : title;
}

export interface KeyLike {
  key: string;
  code: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/** For the help popover and the README. */
export const SHORTCUTS: { keys: string; what: string }[] = [
  ...COMMANDS.filter((c) => c.keys.length > 0 && !c.hidden && c.id !== 'goToLastTab').map((c) => ({ keys: c.keys.join(' / '), what: c.title })),
  { keys: 'Alt+1…8 / Alt+9', what: 'Go to tab 1…8 / the last tab' },
  { keys: 'Double-click a tab', what: 'Rename it' },
  { keys: 'Ctrl+click a link or path', what: 'Open it' },
  { keys: 'Esc', what: 'Close Settings, Sessions, the Agents overview, a menu or the palette' },
];

/** The letter a key event means: its character when Latin, else its physical key (non-Latin layouts). */
function letter(ev: KeyLike): string {
  if (ev.key.length === 1 && /[a-z]/i.test(ev.key)) return ev.key.toUpperCase();
  if (/^Key[A-Z]$/.test(ev.code)) return ev.code.slice(3);
  return '';
}

/** Keys by physical position where the character depends on Shift or the layout. */
const CODE_NAMES: Record<string, string> = {
  BracketRight: ']',
  BracketLeft: '[',
  Comma: ',',
  Equal: '=',
  Minus: '-',
  NumpadAdd: '=',
  NumpadSubtract: '-',
  Numpad0: '0',
};
const SHIFTED: Record<string, string> = { '}': ']', '{': '[', '+': '=', _: '-', '<': ',' };

/** The names an event's key may go by in a chord. */
function keyNames(ev: KeyLike): string[] {
  const out: string[] = [];
  const l = letter(ev);
  if (l) out.push(l);
  if (/^Digit[0-9]$/.test(ev.code)) out.push(ev.code.slice(5));
  const byCode = CODE_NAMES[ev.code];
  if (byCode) out.push(byCode);
  if (ev.key.length > 1) out.push(ev.key); // Tab, PageUp, ArrowLeft, F2 …
  else if (!l) out.push(SHIFTED[ev.key] ?? ev.key);
  return out;
}

export function shortcutFor(ev: KeyLike): Shortcut | null {
  if (ev.metaKey) return null;
  const mods = (ev.ctrlKey ? 'Ctrl+' : '') + (ev.shiftKey ? 'Shift+' : '') + (ev.altKey ? 'Alt+' : '');
  for (const name of keyNames(ev)) {
    const s = BY_CHORD.get(mods + name);
    if (s) return s;
  }
  return null;
}
