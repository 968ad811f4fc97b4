// File paths on a terminal line, as links: `/etc/hosts:3`, `./src/main.go:12:5`, `../x/y.ts`,
// `src/app.tsx:40` (compiler and grep output). Pure, for the link provider in TerminalView.
//
// What counts as a path (kept strict so prose does not light up):
// - absolute (`/etc/hosts`), or starting with `./`, `../` or `~/`: any such token;
// - bare relative (`src/main.go`, `main.go`): only with a file extension, and a bare name without
//   a slash only when followed by `:line` (`main.go:12`), so words like `and/or` or `e.g.` are not;
// - a token starts after whitespace, the line's start, or one of ( [ { < " ' ` = , — never right
//   after `:` or a letter, so a URL's `//host/path` and `a/b` inside words are not paths;
// - `:line` and `:line:col` (and `(line,col)`) after it are kept as the position; trailing
//   punctuation (.,;:!?)]}'" …) is not part of it.

export interface PathLink {
  /** Where the link starts and ends on the line (0-based, end exclusive), position included. */
  start: number;
  end: number;
  /** The link's text as on screen. */
  text: string;
  /** The path alone, as written (may be relative or start with ~). */
  path: string;
  line?: number;
  col?: number;
}

const TOKEN = /(?:\.{1,2}\/|~\/|\/)?[A-Za-z0-9_.+@%~-][A-Za-z0-9_.+@%~/-]*/g;
const BEFORE_OK = /[\s([{<"'`=,]/;
const POSITION = /^(?::(\d+)(?::(\d+))?|\((\d+)(?:,\s?(\d+))?\))/;
const TRAILING = /[.,;:!?'"`)\]}>]+$/;

export function findPathLinks(text: string): PathLink[] {
  const out: PathLink[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN.exec(text))) {
    const start = m.index;
    let path = m[0];
    if (start > 0 && !BEFORE_OK.test(text[start - 1]!)) continue;
    path = path.replace(TRAILING, '');
    if (!isPath(path)) continue;
    let end = start + path.length;
    const pos = POSITION.exec(text.slice(end));
    let line: number | undefined;
    let col: number | undefined;
    if (pos) {
      line = Number(pos[1] ?? pos[3]);
      const c = pos[2] ?? pos[4];
      if (c !== undefined) col = Number(c);
      end += pos[0].length;
    }
    const bare = !/^(\.{1,2}\/|~\/|\/)/.test(path);
    if (bare && !path.includes('/') && line === undefined) continue;
    const link: PathLink = { start, end, text: text.slice(start, end), path };
    if (line !== undefined) link.line = line;
    if (col !== undefined) link.col = col;
    out.push(link);
    TOKEN.lastIndex = end;
  }
  return out;
}

function isPath(p: string): boolean {
  if (p === '' || p === '/' || p === '.' || p === '..' || p === '~' || p.includes('//')) return false;
  if (/^(\.{1,2}\/|~\/)/.test(p)) return p.length > p.indexOf('/') + 1;
  if (p.startsWith('/')) return /[A-Za-z0-9_]/.test(p.slice(1, 2));
  // Bare relative: the last segment needs a file extension (letters after a dot, not a version like 1.2).
  const last = p.slice(p.lastIndexOf('/') + 1);
  return /^[A-Za-z0-9_.+@-]*[A-Za-z0-9_]\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(last) && !/^\d/.test(p);
}

/**
 * The absolute path a link means: relative ones against cwd (null when cwd is unknown, as the
 * page cannot guess), `~/` against home (null when unknown); `.` and `..` segments folded.
 */
export function resolvePath(path: string, cwd: string | undefined, home?: string): string | null {
  let abs: string;
  if (path.startsWith('/')) abs = path;
  else if (path.startsWith('~/')) {
    if (!home || !home.startsWith('/')) return null;
    abs = home + path.slice(1);
  } else {
    if (!cwd || !cwd.startsWith('/')) return null;
    abs = cwd.replace(/\/+$/, '') + '/' + path;
  }
  const parts: string[] = [];
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

/** "/etc/hosts:3:1": how a link's target is written for an editor or the clipboard. */
export function describeTarget(abs: string, line?: number, col?: number): string {
  return abs + (line !== undefined ? `:${line}` + (col !== undefined ? `:${col}` : '') : '');
}
