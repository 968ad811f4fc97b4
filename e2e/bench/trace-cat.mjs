// Where the page's main thread goes during a `cat`: a Chromium trace of one 16 MiB cat into the
// app's first pane (DOM renderer), summarized as self time per trace event on the renderer's main
// thread (JS is "FunctionCall"; drawing is layout, text shaping, paint and commit). The trace
// itself is written to test-artifacts/bench/trace-cat.json (opens in chrome://tracing or Perfetto).
//   REPRISE_BIN=build/bin/reprise node e2e/bench/trace-cat.mjs [--mib N]
import fs from 'node:fs';
import path from 'node:path';

const lib = await import('../lib/index.mjs');
const { launchPipeBrowser } = await import('../lib/cdp-pipe.mjs');
const { makePlainText } = await import('../lib/bench-data.mjs');
const { startServe, cleanup, makeHome, openPage, paneIds, typeInPane, waitForPrompt, waitFor, artifactPath } = lib;

const i = process.argv.indexOf('--mib');
const MIB = i > 0 ? parseFloat(process.argv[i + 1]) : 16;
const home = makeHome();
const server = await startServe({ home, label: 'trace-cat' });
const browser = await launchPipeBrowser();
try {
  const file = path.join(home, 'plain.txt');
  const { buf } = makePlainText(MIB * (1 << 20));
  fs.writeFileSync(file, buf);
  const u = new URL(server.url);
  u.searchParams.set('renderer', 'dom');
  const page = await openPage(browser, u.href);
  const [pane] = await paneIds(page);
  await waitForPrompt(page, pane);
  const rendered = () => page.evaluate((id) => Object.values(window.__reprise.stats()).find((s) => s.paneId === id).rendered, pane);
  await typeInPane(page, pane, `clear; cat ${file}`);
  const base = await rendered();
  await page.cdp('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,blink,v8', transferMode: 'ReturnAsStream' });
  const t0 = Date.now();
  await page.keyboard.press('Enter');
  await waitFor(async () => (await rendered()) >= base + buf.length, { timeoutMs: 300000, intervalMs: 100, message: 'cat to finish' });
  const secs = (Date.now() - t0) / 1000;
  const done = page.cdpEvent('Tracing.tracingComplete');
  await page.cdp('Tracing.end');
  const { stream } = await done;
  const parts = [];
  for (;;) {
    const r = await page.cdp('IO.read', { handle: stream, size: 1 << 20 });
    parts.push(r.base64Encoded ? Buffer.from(r.data, 'base64') : Buffer.from(r.data));
    if (r.eof) break;
  }
  await page.cdp('IO.close', { handle: stream });
  const text = Buffer.concat(parts).toString();
  const out = artifactPath('bench', 'trace-cat.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, text);
  const data = JSON.parse(text);
  const events = Array.isArray(data) ? data : data.traceEvents;
  const mainThread = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const xs = events
    .filter((e) => e.ph === 'X' && e.dur !== undefined && e.pid === mainThread?.pid && e.tid === mainThread?.tid)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // Self time: an event's duration less what nested events on the same thread took.
  const self = new Map();
  const stack = [];
  let busy = 0;
  for (const e of xs) {
    while (stack.length && stack[stack.length - 1].end <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) self.set(parent.name, self.get(parent.name) - Math.min(e.dur, parent.end - e.ts));
    else busy += e.dur;
    self.set(e.name, (self.get(e.name) ?? 0) + e.dur);
    stack.push({ name: e.name, end: e.ts + e.dur });
  }
  console.log(`cat ${MIB} MiB: ${(buf.length / secs / 1e6).toFixed(1)} MB/s traced (tracing slows it), main thread busy ${(busy / 1000).toFixed(0)} ms of ${(secs * 1000).toFixed(0)}`);
  for (const [name, us] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms  ${name}`);
  }
  console.log(`(${out})`);
} finally {
  await browser.close().catch(() => {});
  await cleanup({ server, home, label: 'trace-cat' });
}
