import { describe, expect, it } from 'vitest';
import { describeTarget, findPathLinks, resolvePath } from './pathlinks';

const paths = (s: string) => findPathLinks(s).map((l) => [l.path, l.line, l.col]);

describe('findPathLinks', () => {
  it('finds absolute and dotted paths with their positions', () => {
    expect(paths('cat /etc/hosts:3')).toEqual([['/etc/hosts', 3, undefined]]);
    expect(paths('./src/main.go:12:5: undefined: x')).toEqual([['./src/main.go', 12, 5]]);
    expect(paths('see ../lib/a.ts(4,7) and ~/notes.md')).toEqual([
      ['../lib/a.ts', 4, 7],
      ['~/notes.md', undefined, undefined],
    ]);
    expect(paths('ls /usr/local/bin')).toEqual([['/usr/local/bin', undefined, undefined]]);
  });

  it('finds compiler-style bare relative paths', () => {
    expect(paths('src/app.tsx:40:2 - error TS2322')).toEqual([['src/app.tsx', 40, 2]]);
    expect(paths('main.go:12: missing return')).toEqual([['main.go', 12, undefined]]);
    expect(paths('edit frontend/src/keys.ts')).toEqual([['frontend/src/keys.ts', undefined, undefined]]);
  });

  it('gives the exact span, position included, trailing punctuation excluded', () => {
    const [l] = findPathLinks('error in (/etc/hosts:3).');
    expect(l).toMatchObject({ start: 10, end: 22, text: '/etc/hosts:3' });
    expect(findPathLinks('"/tmp/x.log",')[0]).toMatchObject({ start: 1, end: 11, text: '/tmp/x.log' });
  });

  it('leaves prose, URLs, versions and lone slashes alone', () => {
    expect(paths('and/or, e.g. this')).toEqual([]);
    expect(paths('https://example.com/a/b.html')).toEqual([]);
    expect(paths('version 1.2.3 and 2/3')).toEqual([]);
    expect(paths('a / b // c')).toEqual([]);
    expect(paths('README.md is here')).toEqual([]); // a bare name needs :line
    expect(paths('key=value path=/var/log/syslog')).toEqual([['/var/log/syslog', undefined, undefined]]);
  });
});

describe('resolvePath', () => {
  it('resolves relative paths against the pane cwd', () => {
    expect(resolvePath('./src/main.go', '/home/u/proj')).toBe('/home/u/proj/src/main.go');
    expect(resolvePath('src/main.go', '/home/u/proj/')).toBe('/home/u/proj/src/main.go');
    expect(resolvePath('../lib/a.ts', '/home/u/proj')).toBe('/home/u/lib/a.ts');
    expect(resolvePath('/etc/./hosts', '/x')).toBe('/etc/hosts');
    expect(resolvePath('../../../../x', '/a')).toBe('/x');
  });

  it('refuses what it cannot place', () => {
    expect(resolvePath('src/a.go', undefined)).toBeNull();
    expect(resolvePath('src/a.go', 'relative/cwd')).toBeNull();
    expect(resolvePath('~/a.md', '/x')).toBeNull();
    expect(resolvePath('~/a.md', '/x', '/home/u')).toBe('/home/u/a.md');
  });

  it('writes the target with its position', () => {
    expect(describeTarget('/etc/hosts', 3)).toBe('/etc/hosts:3');
    expect(describeTarget('/a.go', 12, 5)).toBe('/a.go:12:5');
    expect(describeTarget('/a.go')).toBe('/a.go');
  });
});
