import { describe, expect, it } from 'vitest';
import { joinWords, quoteWord, splitWords } from './shellwords';

// The same table as backend/shellquote's TestSplit, so the page and the host agree.
const ok: [string, string[]][] = [
  ['', []],
  ['   \t\n ', []],
  ['--resume', ['--resume']],
  ['threads continue', ['threads', 'continue']],
  ['  threads \t continue\n', ['threads', 'continue']],
  ['--flag "two words"', ['--flag', 'two words']],
  ["'single quoted'", ['single quoted']],
  ['a\\ b', ['a b']],
  ["\\'", ["'"]],
  ['\\\\', ['\\']],
  ['\\$HOME', ['$HOME']],
  ['$HOME ~ * $(id) ${x} ; | & < > ( ) #c', ['$HOME', '~', '*', '$(id)', '${x}', ';', '|', '&', '<', '>', '(', ')', '#c']],
  ['`id`', ['`id`']],
  [`'' ""`, ['', '']],
  ["a''b", ['ab']],
  [`x"y z"'w'`, ['xy zw']],
  [`"it's"`, ["it's"]],
  [`'it'\\''s'`, ["it's"]],
  ["'a\\b'", ['a\\b']],
  ['"\\$ \\` \\" \\\\ \\a \\\'"', ['$ ` " \\ \\a \\\'']],
  ['"$HOME"', ['$HOME']],
  ['a\\\nb', ['ab']],
  ['a \\\n b', ['a', 'b']],
  ['"a\\\nb"', ['ab']],
  ['\\\\\\\n', ['\\']], // an escaped backslash, then a line continuation
  ['héllo ✓', ['héllo', '✓']],
  ['resume --all', ['resume', '--all']],
  ['😀 "😀 x"', ['😀', '😀 x']],
];

const bad: [string, string][] = [
  ["'unterminated", 'unterminated single quote'],
  ["a 'b", 'unterminated single quote'],
  ['"unterminated', 'unterminated double quote'],
  ['"a\\"', 'unterminated double quote'],
  ['"a\\', 'unterminated double quote'],
  ['a\\', 'trailing backslash'],
  ['\\', 'trailing backslash'],
  ['\x1b]0;pwn\x07', 'control character U+001B not allowed'],
  ['a\rb', 'control character U+000D not allowed'],
  ["'a\tb'", 'control character U+0009 not allowed'],
  ['"a\nb"', 'control character U+000A not allowed'],
  ['a\\\tb', 'control character U+0009 not allowed'],
  ['a\x00b', 'control character U+0000 not allowed'],
  ['a\u0085b', 'control character U+0085 not allowed'],
  ['a\x7f', 'control character U+007F not allowed'],
  ['a\uD800b', 'invalid UTF-8'],
  // The first problem from the left wins, as in Go.
  ['"a\x07', 'control character U+0007 not allowed'],
  ["'a\x07", 'unterminated single quote'],
];

describe('splitWords', () => {
  it.each(ok)('%j → %j', (input, want) => {
    expect(splitWords(input)).toEqual({ ok: true, words: want });
  });

  it.each(bad)('%j fails: %s', (input, error) => {
    const r = splitWords(input);
    expect(r).toEqual({ ok: false, error });
  });
});

describe('joinWords', () => {
  it('writes safe words bare and quotes the rest', () => {
    expect(joinWords(['threads', 'continue'])).toBe('threads continue');
    expect(joinWords(['--resume'])).toBe('--resume');
    expect(joinWords(['two words', "it's", '', '$HOME'])).toBe(`'two words' 'it'\\''s' '' '$HOME'`);
    expect(joinWords(null)).toBe('');
    expect(quoteWord('a=b,c:d/e.f@g%h+i')).toBe('a=b,c:d/e.f@g%h+i');
  });

  it('reads back what it wrote', () => {
    const samples: string[][] = [
      [],
      [''],
      ['a b', "'", '"', '\\', '$(id)', '`x`', '~', '*', ';', '#', 'é ✓ 😀'],
      ["it's", "''", "\\'", '"\\"'],
      ['-c', 'x=1', '--flag=two words'],
    ];
    for (const argv of samples) expect(splitWords(joinWords(argv))).toEqual({ ok: true, words: argv });
  });

  it('reads back random printable argv', () => {
    const alphabet = ` ab-_'"\\$\`~*;|&<>()#é✓=,.`;
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let k = 0; k < 500; k++) {
      const argv = Array.from({ length: rand(4) }, () =>
        Array.from({ length: rand(6) }, () => [...alphabet][rand([...alphabet].length)]).join(''),
      );
      expect(splitWords(joinWords(argv))).toEqual({ ok: true, words: argv });
    }
  });
});
