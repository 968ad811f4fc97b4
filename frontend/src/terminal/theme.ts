// xterm colour themes, following the system's prefers-color-scheme live.

import type { ITheme } from '@xterm/xterm';

export type Scheme = 'dark' | 'light';

export const darkTheme: ITheme = {
  background: '#1e1f22',
  foreground: '#d4d4d4',
  cursor: '#d4d4d4',
  cursorAccent: '#1e1f22',
  selectionBackground: '#264f78',
  black: '#1e1f22',
  red: '#f14c4c',
  green: '#23d18b',
  yellow: '#e5e510',
  blue: '#3b8eea',
  magenta: '#d670d6',
  cyan: '#29b8db',
  white: '#cccccc',
  brightBlack: '#666666',
  brightRed: '#f66c6c',
  brightGreen: '#4ee0a5',
  brightYellow: '#f5f543',
  brightBlue: '#5aa2f0',
  brightMagenta: '#e08ae0',
  brightCyan: '#4fcbe8',
  brightWhite: '#e5e5e5',
};

export const lightTheme: ITheme = {
  background: '#ffffff',
  foreground: '#1f2328',
  cursor: '#1f2328',
  cursorAccent: '#ffffff',
  selectionBackground: '#add6ff',
  black: '#1f2328',
  red: '#cd3131',
  green: '#107c10',
  yellow: '#949800',
  blue: '#0451a5',
  magenta: '#bc05bc',
  cyan: '#0598bc',
  white: '#555555',
  brightBlack: '#666666',
  brightRed: '#cd3131',
  brightGreen: '#14ce14',
  brightYellow: '#b5ba00',
  brightBlue: '#0451a5',
  brightMagenta: '#bc05bc',
  brightCyan: '#0598bc',
  brightWhite: '#a5a5a5',
};

export function themeFor(s: Scheme): ITheme {
  return s === 'dark' ? darkTheme : lightTheme;
}

const query = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
const listeners = new Set<(s: Scheme) => void>();

export function currentScheme(): Scheme {
  return query && !query.matches ? 'light' : 'dark';
}

query?.addEventListener('change', () => {
  const s = currentScheme();
  for (const cb of [...listeners]) cb(s);
});

export function onSchemeChange(cb: (s: Scheme) => void): () => void {
  listeners.add(cb);
  return () => listeners.delete(cb);
}
