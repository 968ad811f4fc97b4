import { describe, expect, it } from 'vitest';
import { AppearanceStorage, DEFAULT_APPEARANCE, normalizeAppearance, schemeOf, terminalOptions, zoomedFontSize } from './appearance';
import { darkTheme, lightTheme } from './theme';

describe('appearance', () => {
  it('keeps good values and replaces bad ones with defaults', () => {
    const a = normalizeAppearance({ fontSize: 99, lineHeight: 'x', cursorStyle: 'bar', theme: 'dracula', scrollback: -5, renderer: 'gpu', fontFamily: 'x; }' });
    expect(a).toEqual({ ...DEFAULT_APPEARANCE, fontSize: 40, cursorStyle: 'bar', theme: 'dracula', scrollback: 0 });
    expect(normalizeAppearance(null)).toEqual(DEFAULT_APPEARANCE);
  });

  it('zooms the font within limits', () => {
    expect(zoomedFontSize(DEFAULT_APPEARANCE, 3)).toBe(16);
    expect(zoomedFontSize(DEFAULT_APPEARANCE, -100)).toBe(6);
    expect(terminalOptions(DEFAULT_APPEARANCE, 2, 'dark').fontSize).toBe(15);
  });

  it('follows the system scheme only for "system"', () => {
    expect(terminalOptions(DEFAULT_APPEARANCE, 0, 'light').theme).toBe(lightTheme);
    expect(terminalOptions({ ...DEFAULT_APPEARANCE, theme: 'dark' }, 0, 'light').theme).toBe(darkTheme);
    expect(schemeOf('one-light', 'dark')).toBe('light');
    expect(schemeOf('system', 'dark')).toBe('dark');
  });

  it('round-trips through storage and survives garbage there', () => {
    const m = new Map<string, string>();
    const storage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) } as Storage;
    const s = new AppearanceStorage(storage);
    s.save({ ...DEFAULT_APPEARANCE, fontSize: 15, theme: 'solarized-dark' }, 2);
    expect(s.load()).toEqual({ appearance: { ...DEFAULT_APPEARANCE, fontSize: 15, theme: 'solarized-dark' }, zoom: 2 });
    m.set('reprise.appearance', '{not json');
    expect(s.load().appearance).toEqual(DEFAULT_APPEARANCE);
  });
});
