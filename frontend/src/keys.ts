// Keyboard shortcuts. Only these combinations are taken from the terminal;
// everything else (Ctrl+C, Ctrl+D, Alt+letters, …) goes to the pty.

export type Shortcut =
  | 'newTab'
  | 'splitRight'
  | 'splitDown'
  | 'closePane'
  | 'nextTab'
  | 'prevTab'
  | 'nextPane'
  | 'prevPane'
  | 'focusLeft'
  | 'focusRight'
  | 'focusUp'
  | 'focusDown'
  | 'search'
  | 'copy'
  | 'paste'
  | 'settings'
  | 'sessions'
  | 'agents';

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
  { keys: 'Ctrl+Shift+T', what: 'New tab' },
  { keys: 'Ctrl+Shift+D', what: 'Split right' },
  { keys: 'Ctrl+Shift+E', what: 'Split down' },
  { keys: 'Ctrl+Shift+W', what: 'Close pane' },
  { keys: 'Ctrl+Tab / Ctrl+PageDown', what: 'Next tab' },
  { keys: 'Ctrl+Shift+Tab / Ctrl+PageUp', what: 'Previous tab' },
  { keys: 'Ctrl+Shift+] / [', what: 'Next / previous pane' },
  { keys: 'Alt+Arrow', what: 'Focus the pane in that direction' },
  { keys: 'Ctrl+Shift+F', what: 'Search in pane' },
  { keys: 'Ctrl+Shift+C', what: 'Copy selection' },
  { keys: 'Ctrl+Shift+V', what: 'Paste' },
  { keys: 'Ctrl+,', what: 'Settings' },
  { keys: 'Ctrl+Shift+S', what: 'Agent sessions' },
  { keys: 'Ctrl+Shift+A', what: 'Agents overview' },
  { keys: 'Esc', what: 'Close Settings, Sessions or the Agents overview' },
];

/** The letter a key event means: its character when Latin, else its physical key (non-Latin layouts). */
function letter(ev: KeyLike): string {
  if (ev.key.length === 1 && /[a-z]/i.test(ev.key)) return ev.key.toLowerCase();
  if (/^Key[A-Z]$/.test(ev.code)) return ev.code.slice(3).toLowerCase();
  return '';
}

export function shortcutFor(ev: KeyLike): Shortcut | null {
  if (ev.metaKey) return null;
  const { ctrlKey: ctrl, shiftKey: shift, altKey: alt } = ev;

  if (alt && !ctrl && !shift) {
    switch (ev.key) {
      case 'ArrowLeft':
        return 'focusLeft';
      case 'ArrowRight':
        return 'focusRight';
      case 'ArrowUp':
        return 'focusUp';
      case 'ArrowDown':
        return 'focusDown';
    }
    return null;
  }
  if (!ctrl || alt) return null;

  if (ev.key === 'Tab') return shift ? 'prevTab' : 'nextTab';
  if (!shift && ev.key === 'PageDown') return 'nextTab';
  if (!shift && ev.key === 'PageUp') return 'prevTab';
  if (!shift && (ev.key === ',' || ev.code === 'Comma')) return 'settings';
  if (!shift) return null;

  if (ev.code === 'BracketRight' || ev.key === '}' || ev.key === ']') return 'nextPane';
  if (ev.code === 'BracketLeft' || ev.key === '{' || ev.key === '[') return 'prevPane';
  switch (letter(ev)) {
    case 't':
      return 'newTab';
    case 'd':
      return 'splitRight';
    case 'e':
      return 'splitDown';
    case 'w':
      return 'closePane';
    case 'f':
      return 'search';
    case 'c':
      return 'copy';
    case 'v':
      return 'paste';
    case 's':
      return 'sessions';
    case 'a':
      return 'agents';
  }
  return null;
}
