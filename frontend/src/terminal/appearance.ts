// Settings → Appearance and the font zoom: what every pane's xterm.js looks like. The terminal
// options are built here and only here (terminalOptions), for a new pane and for a change applied
// live to the open ones, so a default (e.g. cursor blink) is decided in one place.
//
// Kept in the page's localStorage ("reprise.appearance", "reprise.zoom"): per window profile, across
// reloads and restarts of the same origin. The desktop window's WebKit keeps its localStorage in
// its data directory; a browser tab keeps it per origin (reprise serve's address).

import type { ITerminalOptions, ITheme } from '@xterm/xterm';
import { PALETTES } from './palettes';
import { currentScheme, themeFor, type Scheme } from './theme';

export type CursorStyle = 'block' | 'underline' | 'bar';
export type RendererPref = 'auto' | 'webgl' | 'dom';
/** system follows the desktop's light/dark preference live; the others are fixed. */
export type ThemeId = 'system' | 'dark' | 'light' | keyof typeof PALETTES;

export interface Appearance {
  fontFamily: string;
  fontSize: number;
  lineHeight: number;
  cursorStyle: CursorStyle;
  cursorBlink: boolean;
  theme: ThemeId;
  scrollback: number;
  renderer: RendererPref;
}

export const DEFAULT_FONT_FAMILY = '"JetBrains Mono", "Cascadia Mono", "Fira Code", Menlo, "DejaVu Sans Mono", "Liberation Mono", monospace';

export const DEFAULT_APPEARANCE: Appearance = {
  fontFamily: DEFAULT_FONT_FAMILY,
  fontSize: 13,
  lineHeight: 1.15,
  cursorStyle: 'block',
  // Off, like VS Code's terminal; on, it costs no echo latency (blink.ts).
  cursorBlink: false,
  theme: 'system',
  scrollback: 10000,
  renderer: 'auto',
};

export const LIMITS = {
  fontSize: { min: 6, max: 40 },
  lineHeight: { min: 1, max: 2 },
  scrollback: { min: 0, max: 200000 },
  /** Zoom steps (one point of font size each) either way. */
  zoom: { min: -8, max: 16 },
};

export const THEMES: { id: ThemeId; label: string }[] = [
  { id: 'system', label: 'System (light or dark)' },
  { id: 'dark', label: 'Dark' },
  { id: 'light', label: 'Light' },
  ...Object.entries(PALETTES).map(([id, p]) => ({ id: id as ThemeId, label: p.label })),
];

const CURSORS: readonly CursorStyle[] = ['block', 'underline', 'bar'];
const RENDERERS: readonly RendererPref[] = ['auto', 'webgl', 'dom'];

const FONT_FAMILY_MAX = 300;

/** Why a typed font list would not be taken (normalizeAppearance would drop it), or null. */
export function fontFamilyError(text: string): string | null {
  if (/[;{}<>]/.test(text)) return 'A font list has no ; { } < or >.';
  if (text.trim().length > FONT_FAMILY_MAX) return `At most ${FONT_FAMILY_MAX} characters.`;
  return null;
}

/** A stored or typed appearance made safe: each bad or missing field takes its default. */
export function normalizeAppearance(raw: unknown): Appearance {
  const r = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const d = DEFAULT_APPEARANCE;
  const num = (v: unknown, lim: { min: number; max: number }, def: number) =>
    typeof v === 'number' && Number.isFinite(v) ? Math.min(lim.max, Math.max(lim.min, v)) : def;
  const family = typeof r.fontFamily === 'string' ? r.fontFamily.trim().slice(0, FONT_FAMILY_MAX) : '';
  return {
    fontFamily: family && !fontFamilyError(family) ? family : d.fontFamily,
    fontSize: Math.round(num(r.fontSize, LIMITS.fontSize, d.fontSize) * 2) / 2,
    lineHeight: Math.round(num(r.lineHeight, LIMITS.lineHeight, d.lineHeight) * 100) / 100,
    cursorStyle: CURSORS.includes(r.cursorStyle as CursorStyle) ? (r.cursorStyle as CursorStyle) : d.cursorStyle,
    cursorBlink: typeof r.cursorBlink === 'boolean' ? r.cursorBlink : d.cursorBlink,
    theme: THEMES.some((t) => t.id === r.theme) ? (r.theme as ThemeId) : d.theme,
    scrollback: Math.round(num(r.scrollback, LIMITS.scrollback, d.scrollback)),
    renderer: RENDERERS.includes(r.renderer as RendererPref) ? (r.renderer as RendererPref) : d.renderer,
  };
}

export function clampZoom(z: number): number {
  return Number.isFinite(z) ? Math.round(Math.min(LIMITS.zoom.max, Math.max(LIMITS.zoom.min, z))) : 0;
}

/** The font size a pane uses: the chosen size moved by the zoom steps, within the limits. */
export function zoomedFontSize(a: Appearance, zoom: number): number {
  return Math.min(LIMITS.fontSize.max, Math.max(LIMITS.fontSize.min, a.fontSize + clampZoom(zoom)));
}

/** The chrome's scheme for a theme (system: the desktop's current one). */
export function schemeOf(theme: ThemeId, system: Scheme = currentScheme()): Scheme {
  if (theme === 'dark' || theme === 'light') return theme;
  return PALETTES[theme]?.scheme ?? system;
}

export function xtermTheme(theme: ThemeId, system: Scheme = currentScheme()): ITheme {
  return PALETTES[theme]?.theme ?? themeFor(schemeOf(theme, system));
}

/** The xterm.js options of a pane. */
export function terminalOptions(a: Appearance, zoom: number, system: Scheme = currentScheme()): ITerminalOptions {
  return {
    fontFamily: a.fontFamily,
    fontSize: zoomedFontSize(a, zoom),
    lineHeight: a.lineHeight,
    scrollback: a.scrollback,
    cursorStyle: a.cursorStyle,
    cursorBlink: a.cursorBlink,
    theme: xtermTheme(a.theme, system),
  };
}

const APPEARANCE_KEY = 'reprise.appearance';
const ZOOM_KEY = 'reprise.zoom';

export class AppearanceStorage {
  constructor(private readonly storage: Storage | null) {}

  load(): { appearance: Appearance; zoom: number } {
    let appearance = DEFAULT_APPEARANCE;
    let zoom = 0;
    try {
      const raw = this.storage?.getItem(APPEARANCE_KEY);
      if (raw) appearance = normalizeAppearance(JSON.parse(raw));
      zoom = clampZoom(Number(this.storage?.getItem(ZOOM_KEY) ?? 0));
    } catch (err) {
      console.info('reprise: stored appearance ignored', err);
    }
    return { appearance, zoom };
  }

  save(appearance: Appearance, zoom: number): void {
    try {
      this.storage?.setItem(APPEARANCE_KEY, JSON.stringify(appearance));
      this.storage?.setItem(ZOOM_KEY, String(zoom));
    } catch (err) {
      console.info('reprise: appearance not saved', err);
    }
  }
}

/** Puts the chrome's scheme and the terminal background on the document (CSS reads data-scheme). */
export function applyChrome(a: Appearance, doc: Document = document): void {
  const root = doc.documentElement;
  if (a.theme === 'system') delete root.dataset.scheme;
  else root.dataset.scheme = schemeOf(a.theme);
  // The panes around a palette's terminal take its background; Settings and Sessions keep the chrome's.
  const bg = PALETTES[a.theme]?.theme.background;
  if (bg) root.style.setProperty('--palette-bg', bg);
  else root.style.removeProperty('--palette-bg');
}
