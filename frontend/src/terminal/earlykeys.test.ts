import { describe, expect, it } from 'vitest';
import { keyBytes, KeyCatcher, printable, type RecordedKey } from './earlykeys';

const key = (k: string, t = 1000, mods: Partial<RecordedKey> = {}): RecordedKey => ({
  key: k, code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, t, ...mods,
});
const typeAll = (c: KeyCatcher, s: string, t: number) => {
  for (const ch of s) c.feed(key(ch === '\r' ? 'Enter' : ch, t));
};

describe('keyBytes', () => {
  it('maps typing keys as a terminal sends them', () => {
    expect(keyBytes(key('a'))).toBe('a');
    expect(keyBytes(key('>'))).toBe('>');
    expect(keyBytes(key(' '))).toBe(' ');
    expect(keyBytes(key('é'))).toBe('é');
    expect(keyBytes(key('Enter'))).toBe('\r');
    expect(keyBytes(key('Backspace'))).toBe('\x7f');
    expect(keyBytes(key('Tab'))).toBe('\t');
    expect(keyBytes(key('ArrowUp'))).toBe('\x1b[A');
    expect(keyBytes(key('c', 0, { ctrlKey: true }))).toBe('\x03');
  });

  it('leaves shortcuts, modifiers and function keys alone', () => {
    expect(keyBytes(key('T', 0, { ctrlKey: true, shiftKey: true, code: 'KeyT' }))).toBeNull();
    expect(keyBytes(key('Shift'))).toBeNull();
    expect(keyBytes(key('F5'))).toBeNull();
    expect(keyBytes(key('a', 0, { metaKey: true }))).toBeNull();
  });
});

describe('KeyCatcher', () => {
  function setup(start = 0) {
    const got: string[] = [];
    const refused: string[] = [];
    let paneReady = false;
    const c = new KeyCatcher({
      start,
      deliver: (d) => (paneReady ? (got.push(d), true) : false),
      refuse: (t) => refused.push(t),
    });
    return { c, got, refused, ready: () => (paneReady = true) };
  }

  it('keeps keys in order until a pane can take them, then delivers them whole', () => {
    const { c, got, ready } = setup();
    typeAll(c, 'echo ok>notes.txt\r', 5000);
    expect(got).toEqual([]);
    expect(c.kept).toBe('echo ok>notes.txt\r');
    ready();
    c.flush();
    expect(got.join('')).toBe('echo ok>notes.txt\r');
    c.feed(key('l', 6000));
    expect(got.join('')).toBe('echo ok>notes.txt\rl');
  });

  it('refuses the first line when typing was under way as the page began to listen', () => {
    const { c, got, refused, ready } = setup(1000);
    ready();
    // The page listens from t=1000; the first key it sees is at 1010: "echo " was lost before.
    typeAll(c, 'ok>notes.txt\r', 1010);
    typeAll(c, 'echo whole\r', 1100);
    expect(refused).toEqual(['ok>notes.txt']);
    expect(got.join('')).toBe('echo whole\r');
  });

  it('a click between the page listening and the first key: the line is typed on purpose, even soon after', () => {
    // A reload, a click into the pane, a quick command, all within the grace time: the
    // command was refused ("not sent: echo after…") and never ran.
    const { c, got, refused, ready } = setup(1000);
    ready();
    c.pointer(1050);
    expect(c.through('echo after\r', 1090)).toBe('echo after\r');
    expect(refused).toEqual([]);
    expect(got).toEqual([]);
  });

  it('a click after the first key does not save a line begun before the page listened', () => {
    const { c, refused, ready } = setup(1000);
    ready();
    typeAll(c, 'ok>no', 1010);
    c.pointer(1050);
    expect(c.through('tes.txt\r', 1060)).toBe('');
    expect(refused).toEqual(['ok>notes.txt']);
  });

  it('the rest of a refused line typed in a terminal is refused with it', () => {
    const { c, got, refused, ready } = setup(1000);
    typeAll(c, 'ok>no', 1010);
    ready();
    expect(c.through('tes.txt\recho next', 1300)).toBe('echo next');
    expect(refused).toEqual(['ok>notes.txt']);
    expect(got).toEqual([]);
  });

  it('a first key well after the page began to listen is typing from the start', () => {
    const { c, got, refused, ready } = setup(1000);
    ready();
    typeAll(c, 'ls\r', 2000);
    expect(refused).toEqual([]);
    expect(got.join('')).toBe('ls\r');
    expect(c.through('pwd\r', 3000)).toBe('pwd\r');
  });

  it('non-typing keys are not taken', () => {
    const { c } = setup();
    expect(c.feed(key('Shift', 5000))).toBe(false);
    expect(c.feed(key('T', 5000, { ctrlKey: true, shiftKey: true, code: 'KeyT' }))).toBe(false);
    expect(c.kept).toBe('');
  });

  it('shows the refused line as typed', () => {
    expect(printable('ok>x\x7fy\r')).toBe('ok>y');
    expect(printable('a\x1bb')).toBe('a^[b');
  });
});
