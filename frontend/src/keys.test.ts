import { describe, expect, it } from 'vitest';
import { COMMANDS, shortcutFor, type KeyLike } from './keys';

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

describe('the command table', () => {
  it('binds no chord twice', () => {
    const seen = new Map<string, string>();
    for (const c of COMMANDS) {
      for (const key of c.keys) {
        expect(seen.get(key), `${key} is bound to ${seen.get(key)} and ${c.id}`).toBeUndefined();
        seen.set(key, c.id);
      }
    }
  });

  it('has one row per action, each reachable from the keyboard or the palette', () => {
    const ids = COMMANDS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of COMMANDS) {
      expect(c.title, c.id).not.toBe('');
      expect(c.keys.length > 0 || !c.hidden, `${c.id} has neither a shortcut nor a palette entry`).toBe(true);
    }
  });

  it('each chord it lists is what the key handler answers for that key', () => {
    for (const c of COMMANDS) for (const chord of c.keys) expect(shortcutFor(parseChord(chord)), chord).toBe(c.id);
  });

  it('writes chords with modifiers in one order (Ctrl, Shift, Alt)', () => {
    for (const c of COMMANDS) {
      for (const chord of c.keys) expect(chord, chord).toMatch(/^(Ctrl\+)?(Shift\+)?(Alt\+)?[^+]+$|^Ctrl\+(Shift\+)?=$/);
    }
  });

  it('maps the new tab, zoom, palette and agent shortcuts', () => {
    expect(shortcutFor(k('2', 'a', 'Digit2'))).toBe('goToTab2');
    expect(shortcutFor(k('9', 'a', 'Digit9'))).toBe('goToLastTab');
    expect(shortcutFor(k('é', 'a', 'Digit2'))).toBe('goToTab2'); // AZERTY: the digit row by position
    expect(shortcutFor(k('PageUp', 'cs'))).toBe('moveTabLeft');
    expect(shortcutFor(k('PageDown', 'cs'))).toBe('moveTabRight');
    expect(shortcutFor(k('=', 'c', 'Equal'))).toBe('zoomIn');
    expect(shortcutFor(k('+', 'cs', 'Equal'))).toBe('zoomIn');
    expect(shortcutFor(k('+', 'c', 'NumpadAdd'))).toBe('zoomIn');
    expect(shortcutFor(k('-', 'c', 'Minus'))).toBe('zoomOut');
    expect(shortcutFor(k('0', 'c', 'Digit0'))).toBe('zoomReset');
    expect(shortcutFor(k('P', 'cs'))).toBe('palette');
    expect(shortcutFor(k('N', 'cs'))).toBe('newAgent');
    expect(shortcutFor(k('K', 'cs'))).toBe('clear');
  });

  it('still leaves the shell its keys', () => {
    expect(shortcutFor(k('_', 'cs', 'Minus'))).toBeNull(); // Ctrl+_: readline's undo
    expect(shortcutFor(k('2', '', 'Digit2'))).toBeNull();
    expect(shortcutFor(k('2', 'c', 'Digit2'))).toBeNull();
    expect(shortcutFor(k('0', 'a', 'Digit0'))).toBeNull(); // Alt+0: readline's argument
    expect(shortcutFor(k('F2', '', 'F2'))).toBeNull(); // htop, mc
    expect(shortcutFor(k('p', 'c'))).toBeNull();
    expect(shortcutFor(k('n', 'c'))).toBeNull();
    expect(shortcutFor(k('k', 'c'))).toBeNull();
  });
});

/** "Ctrl+Shift+]" as a US-layout key event. */
function parseChord(chord: string): KeyLike {
  const parts = chord.endsWith('+=') ? [...chord.slice(0, -2).split('+'), '='] : chord.split('+');
  const name = parts[parts.length - 1]!;
  const mods = parts.slice(0, -1);
  const shift = mods.includes('Shift');
  const codes: Record<string, [string, string]> = {
    ']': ['BracketRight', '}'],
    '[': ['BracketLeft', '{'],
    ',': ['Comma', '<'],
    '=': ['Equal', '+'],
    '-': ['Minus', '_'],
  };
  let key = name;
  let code = name;
  if (/^[A-Z]$/.test(name)) {
    key = shift ? name : name.toLowerCase();
    code = 'Key' + name;
  } else if (/^[0-9]$/.test(name)) {
    code = 'Digit' + name;
  } else if (codes[name]) {
    code = codes[name][0];
    key = shift ? codes[name][1] : name;
  }
  return { key, code, ctrlKey: mods.includes('Ctrl'), shiftKey: shift, altKey: mods.includes('Alt'), metaKey: false };
}
