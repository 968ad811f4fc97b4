// Deterministic test data for the browser benchmarks (e2e/bench/run.mjs): the throughput
// datasets and the integrity stream's generator. Not used by the test suites.

/** A seeded linear congruential generator in [0, 1). */
function lcg(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

/** Wraps a dataset's lines: { name, buf, lines (count of \n), last (plain text of the last line) }. */
function pack(name, parts, last) {
  const buf = Buffer.from(parts.join(''), 'utf8');
  let lines = 0;
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) lines++;
  return { name, buf, lines, last };
}

/** ~size bytes of printable ASCII lines (20–120 columns). */
export function makePlainText(size) {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua 0123456789 {}[]()<>=+-*/ ERROR WARN INFO DEBUG'.split(' ');
  const rnd = lcg(42);
  const parts = [];
  let n = 0;
  let lineNo = 0;
  while (n < size) {
    let line = `${String(++lineNo).padStart(7, '0')} `;
    const width = 20 + Math.floor(rnd() * 100);
    while (line.length < width) line += words[Math.floor(rnd() * words.length)] + ' ';
    line = line.slice(0, width) + '\n';
    parts.push(line);
    n += line.length;
  }
  return pack('plain', parts, parts[parts.length - 1].trimEnd());
}

/**
 * ~size bytes in the shape of `ls -lR --color=always` (with eza-like colour on the other
 * columns too): a "dir:" header and "total N" per directory, then one line per entry with SGR
 * escapes around the permissions, size, date and the name (coloured by type, as LS_COLORS
 * does: directories, executables, symlinks with their target, archives, images), each reset
 * with ESC[0m. Ends with a plain ASCII line.
 */
export function makeLsText(size) {
  const rnd = lcg(7);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const users = ['root', 'alice', 'bob', 'www-data', 'postgres', 'carol'];
  const groups = ['root', 'staff', 'users', 'www-data', 'adm'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const stems = ['index', 'main', 'util', 'config', 'README', 'Makefile', 'server', 'client', 'test_parser', 'handler', 'schema', 'logo', 'vendor', 'build', 'node_modules', 'docs', 'src', 'lib'];
  const kinds = [
    { w: 30, ext: ['.go', '.ts', '.c', '.h', '.md', '.json', '.txt', '.yaml'], perm: '-rw-r--r--', sgr: null },
    { w: 12, ext: [''], perm: 'drwxr-xr-x', sgr: '01;34', dir: true },
    { w: 8, ext: ['.sh', '', '.py'], perm: '-rwxr-xr-x', sgr: '01;32' },
    { w: 6, ext: ['', '.so', '.conf'], perm: 'lrwxrwxrwx', sgr: '01;36', link: true },
    { w: 4, ext: ['.tar.gz', '.zip', '.deb', '.xz'], perm: '-rw-r--r--', sgr: '01;31' },
    { w: 4, ext: ['.png', '.jpg', '.svg'], perm: '-rw-r--r--', sgr: '01;35' },
  ];
  const total = kinds.reduce((a, k) => a + k.w, 0);
  const kind = () => {
    let x = rnd() * total;
    for (const k of kinds) if ((x -= k.w) < 0) return k;
    return kinds[0];
  };
  const parts = [];
  let n = 0;
  let dirNo = 0;
  const push = (s) => {
    parts.push(s);
    n += Buffer.byteLength(s);
  };
  while (n < size) {
    dirNo++;
    const dir = `./${pick(stems)}/${pick(stems)}${dirNo}`;
    push(`${dir}:\n`);
    const entries = 3 + Math.floor(rnd() * 30);
    push(`total ${entries * 4 + Math.floor(rnd() * 200)}\n`);
    for (let e = 0; e < entries; e++) {
      const k = kind();
      const name = `${pick(stems)}${Math.floor(rnd() * 100)}${pick(k.ext)}`;
      const sz = k.dir ? 4096 : Math.floor(rnd() ** 3 * 9e6);
      const day = String(1 + Math.floor(rnd() * 28)).padStart(2);
      const when = rnd() < 0.7 ? `${String(Math.floor(rnd() * 24)).padStart(2, '0')}:${String(Math.floor(rnd() * 60)).padStart(2, '0')}` : ` ${2015 + Math.floor(rnd() * 10)}`;
      const nm = k.sgr ? `\x1b[0m\x1b[${k.sgr}m${name}\x1b[0m` : name;
      const target = k.link ? ` -> \x1b[01;34m../${pick(stems)}/${name}\x1b[0m` : '';
      push(
        `\x1b[1;33m${k.perm}\x1b[0m ${String(1 + Math.floor(rnd() * 4)).padStart(2)} ` +
          `\x1b[33m${pick(users).padEnd(8)}\x1b[0m ${pick(groups).padEnd(8)} ` +
          `\x1b[1;32m${String(sz).padStart(8)}\x1b[0m \x1b[34m${pick(months)} ${day} ${when}\x1b[0m ${nm}${target}\n`,
      );
    }
    push('\n');
  }
  const last = `end of the ls dataset, ${dirNo} directories`;
  push(`${last}\n`);
  return pack('ls', parts, last);
}

/**
 * ~size bytes of multi-byte UTF-8 lines: accented Latin, Greek, Cyrillic, CJK (wide),
 * Hangul and emoji (wide, 4 bytes), mixed with ASCII. No combining marks or ZWJ sequences
 * (their widths differ between terminals). Ends with a plain ASCII line.
 */
export function makeUtf8Text(size) {
  const rnd = lcg(1234);
  const words = [
    'café', 'naïve', 'Ångström', 'Żółć', 'garçon', 'smörgåsbord', 'façade', 'Übermaß', 'jalapeño', 'crème', 'brûlée', 'señor',
    'αβγδε', 'λόγος', 'Привет', 'мир', 'Добро', 'пожаловать',
    '漢字', '日本語', 'テキスト', '中文字符', '東京都', '한국어', '안녕하세요', '表示',
    '😀', '🎉', '🚀', '✅', '🌍', '🔥', '👍', '💡', '📦', '⚡',
    'hello', 'world', 'the', 'quick', 'brown', 'fox', 'ok', '42', '->', '|',
  ];
  const parts = [];
  let n = 0;
  let lineNo = 0;
  while (n < size) {
    let line = `${String(++lineNo).padStart(7, '0')} `;
    // ≤ 60 code points (≤ 120 columns even if all wide).
    const want = 10 + Math.floor(rnd() * 50);
    let cps = 8;
    while (cps < want) {
      const w = words[Math.floor(rnd() * words.length)];
      line += w + ' ';
      cps += [...w].length + 1;
    }
    line = line.trimEnd() + '\n';
    parts.push(line);
    n += Buffer.byteLength(line);
  }
  const last = `end of the utf8 dataset, ${lineNo} lines`;
  parts.push(`${last}\n`);
  return pack('utf8', parts, last);
}

/**
 * The integrity stream's generator, a standalone node script (write it to a file and run it):
 *
 *   node gen.mjs BYTES TAG        writes ESC ] 7777 ; TAG BEL (a start marker that xterm.js
 *                                 ignores), then the content, then the last line
 *   node gen.mjs BYTES TAG --sum  prints {"bytes":N,"fnv":<FNV-1a 32 of the content>,"last":…}
 *
 * The content: numbered lines of ASCII, multi-byte UTF-8 (2-, 3- and 4-byte sequences) and
 * SGR colour escapes, ending in \r\n (so it needs no output processing: run it under
 * `stty -opost`), whole lines up to BYTES bytes (N ≤ BYTES, N > BYTES − 256 KiB), followed by a plain ASCII last line (not
 * counted: it is written after the content) for the page to find.
 */
export const INTEGRITY_GENERATOR = String.raw`
const [bytesArg, tag, mode] = process.argv.slice(2);
const LIMIT = Number(bytesArg);
let seed = 99;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const words = ['alpha', 'beta', 'gamma', 'café', 'Ångström', 'Żółć', 'λόγος', 'Привет', '漢字', '日本語', 'テキスト', '한국어',
  '😀', '🚀', '✅', '🌍', '{x: 1}', '[ok]', 'ERROR', 'WARN', 'ø', 'ß', '€', '¥'];
const sgr = ['\x1b[31m', '\x1b[1;32m', '\x1b[33m', '\x1b[34;1m', '\x1b[38;5;208m', '\x1b[38;2;10;120;200m', '\x1b[7m', '\x1b[4m'];
const pool = [];
for (let i = 0; i < 4096; i++) {
  let s = '';
  const n = 4 + Math.floor(rnd() * 14);
  for (let j = 0; j < n; j++) {
    const w = words[Math.floor(rnd() * words.length)];
    s += rnd() < 0.25 ? sgr[Math.floor(rnd() * sgr.length)] + w + '\x1b[0m ' : w + ' ';
  }
  pool.push(s.trimEnd());
}
const CHUNK = 256 * 1024;
let lineNo = 0;
let produced = 0;
/** The next chunk of content (a Buffer), the last one cut at LIMIT; null when done. */
function next() {
  if (produced >= LIMIT) return null;
  let s = '';
  while (s.length < CHUNK) s += String(++lineNo).padStart(9, '0') + ' ' + pool[Math.floor(rnd() * pool.length)] + '\r\n';
  let b = Buffer.from(s, 'utf8');
  if (produced + b.length > LIMIT) {
    // Whole lines only: a cut UTF-8 sequence or escape would change what the trailer shows.
    b = b.subarray(0, b.lastIndexOf(10, LIMIT - produced - 1) + 1);
    if (b.length === 0) return null;
  }
  produced += b.length;
  return b;
}
const last = '\x1b[0m\r\nintegrity stream ' + tag + ' done\r\n';
if (mode === '--sum') {
  let h = 0x811c9dc5 | 0, total = 0;
  for (let b; (b = next()); ) {
    for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619);
    total += b.length;
  }
  process.stdout.write(JSON.stringify({ bytes: total, fnv: h >>> 0, last: 'integrity stream ' + tag + ' done' }) + '\n');
} else {
  const out = process.stdout;
  const write = (b) => (out.write(b) ? Promise.resolve() : new Promise((r) => out.once('drain', r)));
  (async () => {
    await write('\x1b]7777;' + tag + '\x07');
    for (let b; (b = next()); ) await write(b);
    await write(last);
  })();
}
`;

/** FNV-1a 32 of bytes (the same function as the generator's and the page's). */
export function fnv1a(bytes, h = 0x811c9dc5 | 0) {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 16777619);
  return h >>> 0;
}
