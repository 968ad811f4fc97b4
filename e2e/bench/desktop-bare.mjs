#!/usr/bin/env node
// Helpers of scripts/bench-desktop.sh (the real-window benchmarks, WebKitGTK under Xvfb).
//
//   node e2e/bench/desktop-bare.mjs gen FILE MIB
//       Writes the throughput benchmark's text (the same deterministic lines as bench/run.mjs)
//       to FILE; prints {"bytes","lines","expected","last"} (expected = bytes through a pty,
//       where every \n becomes \r\n).
//   node e2e/bench/desktop-bare.mjs serve FILE RUNS W H RENDERER
//       Serves the shared bare xterm.js page (lib/bare-xterm.mjs: the frontend's own xterm
//       build and options) plus a script that writes FILE's bytes (\n → \r\n) to it from memory
//       RUNS times, in 64 KiB chunks with 1 MiB / 256 KiB watermarks like bench/run.mjs, and
//       POSTs each run's result to /result. Prints the page URL on the first line of stdout,
//       then one JSON line per POST; exits after the last run (title "bench-done").

import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startBareXterm, XTERM_DIR } from '../lib/bare-xterm.mjs';
import { makePlainText } from '../lib/bench-data.mjs';

// Runs in the page: RUNS writes of window.data, each POSTed to /result.
const BENCH_JS = `
(async () => {
  const q = new URLSearchParams(location.search);
  const runs = parseInt(q.get('runs') || '3', 10);
  const post = (o) => fetch('/result', { method: 'POST', body: JSON.stringify(o) });
  try {
    const data = new Uint8Array(await (await fetch('/data')).arrayBuffer());
    await new Promise((r) => setTimeout(r, 500));
    for (let run = 1; run <= runs; run++) {
      const res = await window.feed(data);
      await new Promise((r) => requestAnimationFrame(() => r()));
      const el = document.querySelector('.xterm-screen').getBoundingClientRect();
      await post({ run, ...res, renderer: window.renderer, cols: term.cols, rows: term.rows,
        w: Math.round(el.width), h: Math.round(el.height), lastLine: window.bufferText().split('\\n').pop() });
      await new Promise((r) => setTimeout(r, 300));
    }
  } catch (e) {
    await post({ error: String(e && e.stack || e) });
  }
  document.title = 'bench-done';
})();
`;

const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

async function serve(file, runs, w, h, renderer) {
  const crlf = Buffer.from(readFileSync(file).toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
  // The shared page, as lib/bare-xterm.mjs serves it, with the benchmark script added.
  const shared = await startBareXterm();
  const page = (await (await fetch(shared.url)).text()).replace('</body>', '<script src="/bench.js"></script></body>');
  await shared.close();
  let seen = 0;
  const server = http.createServer(async (req, res) => {
    const u = new URL(req.url, 'http://x');
    if (req.method === 'POST' && u.pathname === '/result') {
      let body = '';
      for await (const c of req) body += c;
      process.stdout.write(body.replace(/\n/g, ' ') + '\n');
      res.writeHead(204);
      res.end();
      const r = JSON.parse(body);
      if (r.error || ++seen >= runs) setTimeout(() => process.exit(r.error ? 1 : 0), 100);
      return;
    }
    if (u.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(page);
    }
    if (u.pathname === '/bench.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(BENCH_JS);
    }
    if (u.pathname === '/data') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(crlf);
    }
    if (u.pathname.startsWith('/xterm/')) {
      const f = path.resolve(XTERM_DIR, '.' + u.pathname.slice('/xterm'.length));
      if (f.startsWith(XTERM_DIR + path.sep)) {
        try {
          const body = await readFile(f);
          res.writeHead(200, { 'content-type': TYPES[path.extname(f)] || 'application/octet-stream' });
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
  const q = new URLSearchParams({ runs: String(runs), w: String(w), h: String(h) });
  if (renderer === 'dom') q.set('renderer', 'dom');
  process.stdout.write(`http://127.0.0.1:${server.address().port}/?${q}\n`);
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === 'gen') {
  const [file, mib] = rest;
  const d = makePlainText(Math.round(parseFloat(mib) * 1024 * 1024));
  writeFileSync(file, d.buf);
  console.log(JSON.stringify({ bytes: d.buf.length, lines: d.lines, expected: d.buf.length + d.lines, last: d.last }));
} else if (cmd === 'serve') {
  const [file, runs, w, h, renderer] = rest;
  await serve(file, parseInt(runs, 10), parseInt(w, 10), parseInt(h, 10), renderer);
} else {
  console.error('usage: desktop-bare.mjs gen FILE MIB | serve FILE RUNS W H RENDERER');
  process.exit(2);
}
