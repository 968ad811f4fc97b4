import { describe, expect, it } from 'vitest';
import { shortcutFor, type KeyLike } from './keys';

function k(key: string, mods: string, code = ''): KeyLike {
  return {
    key,
    code: code || (key.length === 1 && /[a-z]/i.test(key) ? 'Key' + key.toUpperCase() : key),
    ctrlKey: mods.includes('c'),
    shiftKey: mods.includes('s'),
    altKey: mods.includes('a'),
    metaKey: mods.includes('m'),
  };
}

describe('shortcutFor', () => {
  it('maps the documented shortcuts', () => {
    expect(shortcutFor(k('T', 'cs'))).toBe('newTab');
    expect(shortcutFor(k('D', 'cs'))).toBe('splitRight');
    expect(shortcutFor(k('E', 'cs'))).toBe('splitDown');
    expect(shortcutFor(k('W', 'cs'))).toBe('closePane');
    expect(shortcutFor(k('F', 'cs'))).toBe('search');
    expect(shortcutFor(k('C', 'cs'))).toBe('copy');
    expect(shortcutFor(k('V', 'cs'))).toBe('paste');
    expect(shortcutFor(k('Tab', 'c'))).toBe('nextTab');
    expect(shortcutFor(k('Tab', 'cs'))).toBe('prevTab');
    expect(shortcutFor(k('PageDown', 'c'))).toBe('nextTab');
    expect(shortcutFor(k('PageUp', 'c'))).toBe('prevTab');
    expect(shortcutFor(k('}', 'cs', 'BracketRight'))).toBe('nextPane');
    expect(shortcutFor(k('{', 'cs', 'BracketLeft'))).toBe('prevPane');
    expect(shortcutFor(k('ArrowLeft', 'a'))).toBe('focusLeft');
    expect(shortcutFor(k('ArrowRight', 'a'))).toBe('focusRight');
    expect(shortcutFor(k('ArrowUp', 'a'))).toBe('focusUp');
    expect(shortcutFor(k('ArrowDown', 'a'))).toBe('focusDown');
    expect(shortcutFor(k(',', 'c', 'Comma'))).toBe('settings');
    expect(shortcutFor(k('S', 'cs'))).toBe('sessions');
    expect(shortcutFor(k('A', 'cs'))).toBe('agents');
    expect(shortcutFor(k('a', 'c'))).toBeNull(); // Ctrl+A is the shell's line start
  });

  it('leaves ordinary terminal keys to the pty', () => {
    for (const key of ['c', 'd', 'z', 'l', 'r', 'a', 'e', 'w', 't', 'v', 'f', 's']) {
      expect(shortcutFor(k(key, 'c'))).toBeNull();
    }
    expect(shortcutFor(k('b', 'a'))).toBeNull(); // Alt+b: word back
    expect(shortcutFor(k('ArrowLeft', 'c'))).toBeNull();
    expect(shortcutFor(k('ArrowLeft', 'ca'))).toBeNull();
    expect(shortcutFor(k('ArrowLeft', 'as'))).toBeNull();
    expect(shortcutFor(k('Tab', ''))).toBeNull();
    expect(shortcutFor(k('PageUp', 's'))).toBeNull();
    expect(shortcutFor(k(']', 'c', 'BracketRight'))).toBeNull(); // Ctrl+] is telnet's escape
    expect(shortcutFor(k('T', 'csa'))).toBeNull();
    expect(shortcutFor(k('T', 'csm'))).toBeNull();
    expect(shortcutFor(k('x', ''))).toBeNull();
    expect(shortcutFor(k(',', '', 'Comma'))).toBeNull();
    expect(shortcutFor(k(',', 'a', 'Comma'))).toBeNull();
  });

  it('uses the physical key on non-Latin layouts', () => {
    expect(shortcutFor(k('Т', 'cs', 'KeyT'))).toBe('newTab'); // Cyrillic Te
  });
});
