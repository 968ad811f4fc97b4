// A page with a bare xterm.js (the frontend's own build from frontend/node_modules/@xterm),
// configured like Reprise's TerminalView, for comparisons and for checking what xterm.js does
// with a byte sequence. Served from a throwaway loopback HTTP server.

import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const XTERM_DIR = path.resolve(here, '../../frontend/node_modules/@xterm');

/**
 * Feeds data to an xterm.js Terminal from memory in 64 KiB writes behind 1 MiB / 256 KiB
 * watermarks (the app's flow control); resolves to { ms, bytes } when every write callback has
 * fired. Runs in a page: the bare page's feed(), and the benchmarks' "app page from memory"
 * anchor on the pane's own Terminal (window.__reprise.terminal).
 */
export function feedTerm(term, data) {
  return new Promise((resolve) => {
    const CHUNK = 64 * 1024, HIGH = 1 << 20, LOW = 256 * 1024;
    let off = 0, pending = 0, rendered = 0, waiting = false;
    const t0 = performance.now();
    const pump = () => {
      waiting = false;
      while (off < data.length && pending < HIGH) {
        const c = data.subarray(off, Math.min(off + CHUNK, data.length));
        off += c.length;
        pending += c.length;
        term.write(c, () => {
          pending -= c.length;
          rendered += c.length;
          if (rendered === data.length) resolve({ ms: performance.now() - t0, bytes: rendered });
          else if (!waiting && pending < LOW) {
            waiting = true;
            setTimeout(pump, 0);
          }
        });
      }
    };
    pump();
  });
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="/xterm/xterm/css/xterm.css">
<style>html,body{margin:0;height:100%;background:#fff}#t{position:absolute;inset:0}</style>
<script src="/xterm/xterm/lib/xterm.js"></script>
<script src="/xterm/addon-fit/lib/addon-fit.js"></script>
<script src="/xterm/addon-unicode11/lib/addon-unicode11.js"></script>
<script src="/xterm/addon-webgl/lib/addon-webgl.js"></script>
</head><body><div id="t"></div>
<script>
  const q = new URLSearchParams(location.search);
  // ?w=&h= (CSS px): the size of the terminal element, to match a Reprise pane.
  if (q.get('w') && q.get('h')) {
    const el = document.getElementById('t');
    el.style.inset = 'auto';
    el.style.width = q.get('w') + 'px';
    el.style.height = q.get('h') + 'px';
  }
  const term = new Terminal({
    allowProposedApi: true,
    fontFamily: '"JetBrains Mono", "Cascadia Mono", "Fira Code", Menlo, "DejaVu Sans Mono", "Liberation Mono", monospace',
    fontSize: 13, lineHeight: 1.15, scrollback: 10000,
    // ?blink=1: a blinking cursor (Reprise's cursorBlink preference).
    cursorBlink: q.get('blink') === '1',
    theme: { background: '#ffffff', foreground: '#1f2328', cursor: '#1f2328' },
  });
  term.open(document.getElementById('t'));
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  fit.fit();
  term.loadAddon(new Unicode11Addon.Unicode11Addon());
  term.unicode.activeVersion = '11';
  window.renderer = 'dom';
  if (q.get('renderer') !== 'dom') {
    try { term.loadAddon(new WebglAddon.WebglAddon()); window.renderer = 'webgl'; } catch (e) { console.info('no webgl', e); }
  }
  window.term = term;
  // Resets term and feeds it data from memory: see feedTerm below.
  window.feed = (data) => {
    term.reset();
    return (${feedTerm})(term, data);
  };
  window.bufferText = () => {
    const b = term.buffer.active, out = [];
    for (let i = 0; i < b.length; i++) out.push(b.getLine(i).translateToString(true));
    return out.join('\\n').replace(/\\s+$/, '');
  };
  window.ready = true;
</script></body></html>`;

const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

/**
 * Starts the server; resolves to { url, close() }. files: extra { '/path': Buffer } to serve
 * (e.g. test data for the page to fetch).
 */
export async function startBareXterm(files = {}) {
  const server = http.createServer(async (req, res) => {
    const u = new URL(req.url, 'http://x');
    if (files[u.pathname]) {
      // Any page may fetch the test data (the app's page, on its own origin, too).
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' });
      return res.end(files[u.pathname]);
    }
    if (u.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(PAGE);
    }
    if (u.pathname.startsWith('/xterm/')) {
      const file = path.resolve(XTERM_DIR, '.' + u.pathname.slice('/xterm'.length));
      if (file.startsWith(XTERM_DIR + path.sep)) {
        try {
          const body = await readFile(file);
          res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
          return res.end(body);
        } catch {
          // fall through
        }
      }
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}
