#!/usr/bin/env node
// Browser benchmarks for Reprise (not pass/fail). Each figure is the median over RUNS runs.
//
//   node e2e/bench/run.mjs [--runs N] [--renderer dom|webgl] [--mib N] [--only a,b]
//
// The renderer defaults to DOM: headless Chromium has no GPU here, so xterm.js's WebGL renderer
// runs on the SwiftShader software rasterizer, which then dominates every figure (~1 MB/s).
//
// - throughput: `cat` of a 32 MiB text file in a pane: bytes rendered by xterm.js (its write
//   callbacks, window.__reprise.stats()) per second from Enter to the last byte; against a bare
//   xterm.js page in the same browser fed the same bytes from memory in 64 KiB chunks with the
//   same 1 MiB / 256 KiB watermarks.
// - latency: 200 single keys into `cat`; keydown → the echo written to xterm's buffer, measured
//   inside the page (no CDP round trip in the figure).
// - reattach: a pane with 10,000 lines of scrollback; reload: bytes replayed to the page, and
//   the time from navigation start until the last line is in the buffer and a frame painted.
// - idle: CPU of `reprise serve` + the pty daemon with 10 idle panes over 10 s (/proc utime+stime).
//
// Env: REPRISE_BIN (default build/bin/reprise), ARTIFACTS (default test-artifacts; results are
// also written to $ARTIFACTS/bench/bench.json), CHROMIUM (default /usr/bin/chromium).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import os from 'node:os';

let lib;
try {
  lib = await import('../lib/index.mjs');
} catch (e) {
  console.error(`bench: cannot load the e2e helpers (${e.message}); run "cd e2e && npm ci" first`);
  process.exit(1);
}
const { startBareXterm } = await import('../lib/bare-xterm.mjs');
const {
  startServe, cleanup, makeHome, launchBrowser, openPage, paneIds, typeInPane, waitForText, waitForPrompt, waitReady,
  focusPane, layout, daemonPid, cpuTicks, waitFor, sleep, artifactPath, treePanes, codeword, paneSel,
} = lib;

// ---- options -------------------------------------------------------------------------------
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return def;
  return args[i].includes('=') ? args[i].split('=').slice(1).join('=') : args[i + 1];
};
const RUNS = Math.max(3, parseInt(opt('runs', '3'), 10));
const RENDERER = opt('renderer', 'dom');
const MIB = parseFloat(opt('mib', '32'));
const ONLY = new Set(opt('only', 'throughput,latency,reattach,idle').split(','));
const KEYS = 200;
const SCROLLBACK_LINES = 10000;
const IDLE_PANES = 10;
const IDLE_SECONDS = 10;
const CLK_TCK = 100;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const mb = (bytesPerSec) => (bytesPerSec / 1e6).toFixed(1);
const log = (...a) => console.error('bench:', ...a);

// ---- test data -----------------------------------------------------------------------------
/** ~size bytes of text lines (printable ASCII, 20–120 columns), deterministic. */
function makeText(size) {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua 0123456789 {}[]()<>=+-*/ ERROR WARN INFO DEBUG'.split(' ');
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
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
  const buf = Buffer.from(parts.join(''), 'latin1');
  return { buf, lines: parts.length, last: parts[parts.length - 1].trimEnd() };
}

const statsOf = (page, paneId) =>
  page.evaluate((id) => Object.values(window.__reprise.stats()).find((s) => s.paneId === id) || null, paneId);

// ---- throughput ----------------------------------------------------------------------------
/** The benchmark's text file, written once into the home. */
function writeData(server) {
  const data = makeText(Math.round(MIB * 1024 * 1024));
  const file = path.join(server.home, 'bench.txt');
  writeFileSync(file, data.buf);
  // The pty turns every \n into \r\n.
  return { ...data, file, expected: data.buf.length + data.lines };
}

/**
 * pty → daemon → host → WebSocket without xterm.js: a bare WebSocket client in a page on the
 * server's origin (no app loaded) attaches to the first terminal, runs `cat`, and acknowledges
 * every 100 KB like the app does. Run before the app's page attaches anything.
 */
/**
 * Playwright's Network domain reports every WebSocket frame to the driver (binary frames as
 * base64): at tens of MB/s that costs more than the transport being measured. The pages under
 * measurement turn it off; nothing here needs request events.
 */
async function quietNetwork(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.disable');
}

async function benchRawWebSocket(browser, server, data) {
  const tid = (await lib.terminalsList(server.home))[0].id;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${server.origin}/bench-blank?token=${server.token}`);
  await quietNetwork(page);
  const rates = [];
  for (let r = 0; r < RUNS; r++) {
    const res = await page.evaluate(
      async ({ tid, token, file, expected }) => {
        const ws = new WebSocket(`ws://${location.host}/ws?token=${token}`);
        ws.binaryType = 'arraybuffer';
        await new Promise((ok, fail) => ((ws.onopen = ok), (ws.onerror = fail)));
        let id = 0, got = 0, unacked = 0, t0 = 0, h = 0, done;
        const pend = {};
        const fin = new Promise((r) => (done = r));
        const ack = () => {
          ws.send(JSON.stringify({ method: 'ack', params: { handle: h, bytes: unacked } }));
          unacked = 0;
        };
        ws.onmessage = (e) => {
          if (typeof e.data === 'string') {
            const m = JSON.parse(e.data);
            if (m.id && pend[m.id]) pend[m.id](m);
            return;
          }
          const n = e.data.byteLength - 5;
          got += n;
          unacked += n;
          if (unacked >= 100 * 1024) ack();
          if (t0 && got >= expected) done(performance.now() - t0);
        };
        const call = (method, params) =>
          new Promise((r) => {
            pend[++id] = r;
            ws.send(JSON.stringify({ id, method, params }));
          });
        await call('hello', {});
        h = (await call('attach', { terminalId: tid, cols: 160, rows: 40 })).result.handle;
        // Drain the replay, then type `clear; cat file` + Enter.
        await new Promise((r) => setTimeout(r, 300));
        if (unacked) ack();
        const cmd = new TextEncoder().encode(`clear; cat ${file}\r`);
        const fr = new Uint8Array(5 + cmd.length);
        fr[0] = 2;
        new DataView(fr.buffer).setUint32(1, h);
        fr.set(cmd, 5);
        got = 0;
        t0 = performance.now();
        ws.send(fr);
        const ms = await fin;
        // Let the rest (the prompt) arrive, acknowledged, before the next run.
        await new Promise((r) => setTimeout(r, 300));
        if (unacked) ack();
        ws.close();
        return { ms, bytes: got };
      },
      { tid, token: server.token, file: data.file, expected: data.expected },
    );
    rates.push(res.bytes / (res.ms / 1000));
    log(`throughput run ${r + 1}: raw WebSocket ${mb(res.bytes / (res.ms / 1000))} MB/s`);
  }
  await ctx.close();
  return { rate: median(rates), runs: rates };
}

async function benchThroughput(browser, server, page, pane, data) {
  const { file, expected } = data;
  const appRates = [];
  const ptyRates = [];
  const hostCpu = [];
  const dpid = daemonPid(server.home);
  for (let r = 0; r < RUNS; r++) {
    await typeInPane(page, pane, `clear; cat ${file}`);
    await page.evaluate(
      ({ id, expected }) => {
        const st = () => Object.values(window.__reprise.stats()).find((s) => s.paneId === id);
        const tp = (window.__tp = { t0: 0, t1: 0, bytes: 0 });
        const poll = () => {
          const got = st().rendered - tp.base;
          if (got >= expected) {
            tp.t1 = performance.now();
            tp.bytes = got;
          } else setTimeout(poll, 1);
        };
        window.addEventListener(
          'keydown',
          function kd(e) {
            if (e.key !== 'Enter') return;
            window.removeEventListener('keydown', kd, true);
            tp.t0 = performance.now();
            tp.base = st().rendered;
            poll();
          },
          true,
        );
      },
      { id: pane, expected },
    );
    const c0 = cpuTicks(server.pid) + cpuTicks(dpid);
    const w0 = performance.now();
    await page.keyboard.press('Enter');
    const res = await waitFor(() => page.evaluate(() => (window.__tp.t1 ? window.__tp : null)), {
      timeoutMs: 300000,
      intervalMs: 100,
      message: 'cat to finish',
    });
    // Correctness: the file's last line is on screen, then the prompt.
    await waitForText(page, pane, data.last, { timeoutMs: 30000 });
    await waitForPrompt(page, pane, { timeoutMs: 30000 });
    const secs = (res.t1 - res.t0) / 1000;
    appRates.push(res.bytes / secs);
    hostCpu.push(((cpuTicks(server.pid) + cpuTicks(dpid) - c0) / CLK_TCK / ((performance.now() - w0) / 1000)) * 100);
    log(`throughput run ${r + 1}: reprise ${mb(res.bytes / secs)} MB/s (${(secs).toFixed(2)} s)`);
  }

  // The same bytes (with \r\n) fed to a bare xterm.js from memory.
  const crlf = Buffer.from(data.buf.toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
  const bare = await startBareXterm({ '/data': crlf });
  const size = await page.evaluate((id) => {
    const r = document.querySelector(`[data-testid=pane][data-pane-id="${id}"] .xterm-host`).getBoundingClientRect();
    return { w: Math.round(r.width), h: Math.round(r.height) };
  }, pane);
  const ctx = await browser.newContext({ viewport: page.viewportSize() });
  const bp = await ctx.newPage();
  await bp.goto(`${bare.url}?w=${size.w}&h=${size.h}${RENDERER === 'dom' ? '&renderer=dom' : ''}`);
  await bp.waitForFunction(() => window.ready);
  await bp.evaluate(async () => {
    window.data = new Uint8Array(await (await fetch('/data')).arrayBuffer());
  });
  const bareRenderer = await bp.evaluate(() => window.renderer);
  for (let r = 0; r < RUNS; r++) {
    const res = await bp.evaluate(
      () =>
        new Promise((resolve) => {
          term.reset();
          const data = window.data;
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
        }),
    );
    ptyRates.push(res.bytes / (res.ms / 1000));
    log(`throughput run ${r + 1}: bare xterm.js ${mb(res.bytes / (res.ms / 1000))} MB/s`);
  }
  const lastBare = await bp.evaluate(() => window.bufferText().split('\n').pop());
  if (lastBare !== data.last) log(`warning: the bare page's last line is ${JSON.stringify(lastBare)}`);
  await ctx.close();
  await bare.close();
  const app = median(appRates);
  const ref = median(ptyRates);
  return {
    bytes: expected,
    rendererApp: (await statsOf(page, pane)).renderer,
    rendererBare: bareRenderer,
    reprise: app,
    bareXterm: ref,
    ratio: app / ref,
    hostCpuPct: median(hostCpu),
    runs: { reprise: appRates, bareXterm: ptyRates, hostCpuPct: hostCpu },
  };
}

// ---- keystroke echo latency ----------------------------------------------------------------
/**
 * Runs in the page before its scripts: wraps WebSocket so that right after the app has handled
 * each message (and so written it to xterm) window.__afterMessage() runs. Timing the echo this
 * way needs no polling loop, which would compete with the WebSocket for the main thread.
 */
function latencyInitScript() {
  const W = window.WebSocket;
  class BenchWebSocket extends W {
    set onmessage(fn) {
      super.onmessage = fn
        ? (ev) => {
            fn.call(this, ev);
            if (window.__afterMessage) window.__afterMessage();
          }
        : null;
    }
    get onmessage() {
      return super.onmessage;
    }
  }
  window.WebSocket = BenchWebSocket;
}

async function benchLatency(page, pane) {
  await typeInPane(page, pane, 'clear; cat\n');
  await waitFor(async () => ((await statsOf(page, pane)) || {}).rendered > 0);
  // Let `cat` start: the shell echoes nothing more after the command line.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  await page.evaluate((id) => {
    const st = () => Object.values(window.__reprise.stats()).find((s) => s.paneId === id);
    const b = (window.__lat = { samples: [] });
    let cur = null;
    // xterm.js parses the echo at once (it follows user input) or in a 0 ms timeout.
    const check = () => {
      if (!cur) return;
      if (st().rendered > cur.base) {
        b.samples.push(performance.now() - cur.t0);
        cur = null;
      } else setTimeout(check, 0);
    };
    window.__afterMessage = check;
    window.addEventListener(
      'keydown',
      () => {
        cur = { t0: performance.now(), base: st().rendered };
      },
      true,
    );
  }, pane);
  await focusPane(page, pane);
  const runs = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let r = 0; r < RUNS; r++) {
    const start = await page.evaluate(() => window.__lat.samples.length);
    for (let i = 0; i < KEYS; i++) {
      await page.keyboard.press(letters[i % letters.length]);
      await waitFor(() => page.evaluate((n) => window.__lat.samples.length > n, start + i), {
        timeoutMs: 10000,
        intervalMs: 1,
        message: `the echo of key ${i}`,
      });
    }
    const s = await page.evaluate((n) => window.__lat.samples.slice(n), start);
    runs.push({ p50: pct(s, 50), p95: pct(s, 95), max: Math.max(...s) });
    log(`latency run ${r + 1}: p50 ${pct(s, 50).toFixed(2)} ms, p95 ${pct(s, 95).toFixed(2)} ms`);
  }
  await page.evaluate(() => (window.__afterMessage = null));
  await page.keyboard.press('Control+C');
  await waitForPrompt(page, pane);

  // The browser's floor: a bare xterm.js that echoes each key itself from a 0 ms timeout (no
  // network). After a key event Chromium renders a frame before it runs the next task, so any
  // asynchronous echo waits for that frame.
  const bare = await startBareXterm();
  const ctx = await page.context().browser().newContext({ viewport: page.viewportSize() });
  const bp = await ctx.newPage();
  await bp.goto(`${bare.url}${RENDERER === 'dom' ? '?renderer=dom' : ''}`);
  await bp.waitForFunction(() => window.ready);
  await bp.evaluate(() => {
    window.lat = [];
    let t0 = 0;
    window.addEventListener('keydown', () => (t0 = performance.now()), true);
    term.onData((d) => setTimeout(() => term.write(d, () => window.lat.push(performance.now() - t0)), 0));
    term.focus();
  });
  const floor = [];
  for (let r = 0; r < RUNS; r++) {
    const start = await bp.evaluate(() => window.lat.length);
    for (let i = 0; i < KEYS; i++) {
      await bp.keyboard.press(letters[i % letters.length]);
      await waitFor(() => bp.evaluate((n) => window.lat.length > n, start + i), { timeoutMs: 10000, intervalMs: 1 });
    }
    const s = await bp.evaluate((n) => window.lat.slice(n), start);
    floor.push({ p50: pct(s, 50), p95: pct(s, 95) });
    log(`latency floor run ${r + 1}: p50 ${pct(s, 50).toFixed(2)} ms, p95 ${pct(s, 95).toFixed(2)} ms`);
  }
  await ctx.close();
  await bare.close();
  return {
    keys: KEYS,
    p50: median(runs.map((x) => x.p50)),
    p95: median(runs.map((x) => x.p95)),
    floorP50: median(floor.map((x) => x.p50)),
    floorP95: median(floor.map((x) => x.p95)),
    runs,
    floor,
  };
}

// ---- reattach ------------------------------------------------------------------------------
async function benchReattach(server, page, pane) {
  const tag = codeword('sb');
  const file = path.join(server.home, 'scrollback.txt');
  let text = '';
  for (let i = 1; i <= SCROLLBACK_LINES; i++) text += `${tag} line ${String(i).padStart(5, '0')} of ${SCROLLBACK_LINES}: lorem ipsum dolor sit amet, consectetur adipiscing elit\n`;
  writeFileSync(file, text);
  const last = `${tag} line ${SCROLLBACK_LINES} of`;
  await typeInPane(page, pane, `clear; cat ${file}\n`);
  await waitForText(page, pane, last, { timeoutMs: 60000 });
  await waitForPrompt(page, pane);
  const runs = [];
  // Installed before the page's own scripts run on each reload: watch for the last line.
  await page.addInitScript(
    ({ id, last }) => {
      if (!sessionStorage.getItem('benchReattach')) return;
      const w = (window.__ra = { firstByte: 0, painted: 0, written: 0 });
      let prev = -1;
      const tick = () => {
        const r = window.__reprise;
        const s = r && Object.values(r.stats()).find((x) => x.paneId === id);
        if (s && s.written > 0 && !w.firstByte) w.firstByte = performance.now();
        // Read the buffer (costly) only when the stream has paused and all of it is rendered.
        if (s && s.written > 0 && s.rendered === s.written && s.written === prev && (r.paneText(id) || '').includes(last)) {
          w.written = s.written;
          w.inBuffer = performance.now();
          // The next frame paints it.
          requestAnimationFrame(() => requestAnimationFrame(() => (w.painted = performance.now())));
          return;
        }
        prev = s ? s.written : -1;
        setTimeout(tick, 2);
      };
      tick();
    },
    { id: pane, last },
  );
  await page.evaluate(() => sessionStorage.setItem('benchReattach', '1'));
  for (let r = 0; r < RUNS; r++) {
    await page.reload();
    const res = await waitFor(() => page.evaluate(() => (window.__ra && window.__ra.painted ? window.__ra : null)), {
      timeoutMs: 60000,
      message: 'the reattached pane to show its last line',
      retryErrors: true,
    });
    await waitReady(page);
    runs.push(res);
    log(`reattach run ${r + 1}: ${res.written} bytes, painted ${res.painted.toFixed(0)} ms after navigation start`);
  }
  await page.evaluate(() => sessionStorage.removeItem('benchReattach'));
  return {
    lines: SCROLLBACK_LINES,
    bytes: median(runs.map((x) => x.written)),
    msToPainted: median(runs.map((x) => x.painted)),
    msFirstByteToPainted: median(runs.map((x) => x.painted - x.firstByte)),
    runs,
  };
}

// ---- idle CPU ------------------------------------------------------------------------------
async function benchIdle(server, page) {
  while ((await layout(page)).tabs.length < IDLE_PANES) {
    const n = (await layout(page)).tabs.length;
    await page.click('[data-testid=new-tab]');
    await waitFor(async () => (await layout(page)).tabs.length === n + 1, { message: 'a new tab' });
  }
  await waitReady(page);
  const l = await layout(page);
  const panes = l.tabs.flatMap((t) => treePanes(t.root));
  for (const t of l.tabs) {
    await page.click(`[data-testid=tab][data-tab-id="${t.id}"]`);
    for (const p of treePanes(t.root)) await waitForPrompt(page, p);
  }
  // Settle: no output, no layout traffic.
  await sleep(2000);
  const pids = { serve: server.pid, daemon: daemonPid(server.home) };
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const a = { serve: cpuTicks(pids.serve), daemon: cpuTicks(pids.daemon), t: performance.now() };
    await sleep(IDLE_SECONDS * 1000);
    const b = { serve: cpuTicks(pids.serve), daemon: cpuTicks(pids.daemon), t: performance.now() };
    const secs = (b.t - a.t) / 1000;
    const res = {
      serve: ((b.serve - a.serve) / CLK_TCK / secs) * 100,
      daemon: ((b.daemon - a.daemon) / CLK_TCK / secs) * 100,
    };
    runs.push(res);
    log(`idle run ${r + 1}: serve ${res.serve.toFixed(2)} %, daemon ${res.daemon.toFixed(2)} % of one core`);
  }
  return {
    panes: panes.length,
    seconds: IDLE_SECONDS,
    servePct: median(runs.map((x) => x.serve)),
    daemonPct: median(runs.map((x) => x.daemon)),
    runs,
  };
}

// ---- main ----------------------------------------------------------------------------------
const results = { runs: RUNS, renderer: RENDERER, date: new Date().toISOString(), cpus: os.cpus().length, loadavgBefore: os.loadavg() };
const home = makeHome();
let server;
let browser;
try {
  server = await startServe({ home, label: 'bench' });
  browser = await launchBrowser();
  const data = writeData(server);
  const raw = ONLY.has('throughput') ? await benchRawWebSocket(browser, server, data) : null;
  const url = RENDERER === 'dom' ? server.url + '&renderer=dom' : server.url;
  const page = await openPage(browser, url, { initScript: latencyInitScript });
  await quietNetwork(page);
  const [pane] = await paneIds(page);
  await waitForPrompt(page, pane);
  if (ONLY.has('throughput')) {
    results.throughput = await benchThroughput(browser, server, page, pane, data);
    results.throughput.rawWebSocket = raw;
  }
  if (ONLY.has('latency')) results.latency = await benchLatency(page, pane);
  if (ONLY.has('reattach')) results.reattach = await benchReattach(server, page, pane);
  if (ONLY.has('idle')) results.idle = await benchIdle(server, page);
} finally {
  await browser?.close().catch(() => {});
  await cleanup({ server, home, label: 'bench' });
}

// ---- report --------------------------------------------------------------------------------
const rows = [];
const t = results.throughput;
if (t) {
  rows.push([`throughput, cat ${MIB} MiB → xterm.js (${t.rendererApp})`, `${mb(t.reprise)} MB/s`, `runs: ${t.runs.reprise.map(mb).join(', ')}`]);
  rows.push([`throughput, bare xterm.js from memory (${t.rendererBare})`, `${mb(t.bareXterm)} MB/s`, `runs: ${t.runs.bareXterm.map(mb).join(', ')}`]);
  rows.push(['throughput ratio, reprise / bare xterm.js', t.ratio.toFixed(2), '']);
  rows.push(['  pty → WebSocket alone (no xterm.js, acks every 100 KB)', `${mb(t.rawWebSocket.rate)} MB/s`, `runs: ${t.rawWebSocket.runs.map(mb).join(', ')}`]);
  rows.push(['  CPU of serve + daemon during the cat', `${t.hostCpuPct.toFixed(0)} %`, `runs: ${t.runs.hostCpuPct.map((x) => x.toFixed(0)).join(', ')}`]);
}
const lt = results.latency;
if (lt) {
  rows.push([`keystroke echo latency p50 (${lt.keys} keys × ${RUNS})`, `${lt.p50.toFixed(2)} ms`, `runs: ${lt.runs.map((x) => x.p50.toFixed(2)).join(', ')}`]);
  rows.push(['keystroke echo latency p95', `${lt.p95.toFixed(2)} ms`, `runs: ${lt.runs.map((x) => x.p95.toFixed(2)).join(', ')}`]);
  rows.push(['  browser floor p50 (bare xterm.js, echo from a 0 ms timeout)', `${lt.floorP50.toFixed(2)} ms`, `runs: ${lt.floor.map((x) => x.p50.toFixed(2)).join(', ')}`]);
  rows.push(['  browser floor p95', `${lt.floorP95.toFixed(2)} ms`, `runs: ${lt.floor.map((x) => x.p95.toFixed(2)).join(', ')}`]);
}
const ra = results.reattach;
if (ra) {
  rows.push([`reattach ${ra.lines} lines: bytes replayed`, `${(ra.bytes / 1024).toFixed(0)} KiB`, '']);
  rows.push(['reattach: navigation start → painted', `${ra.msToPainted.toFixed(0)} ms`, `runs: ${ra.runs.map((x) => x.painted.toFixed(0)).join(', ')}`]);
  rows.push(['reattach: first replay byte → painted', `${ra.msFirstByteToPainted.toFixed(0)} ms`, `runs: ${ra.runs.map((x) => (x.painted - x.firstByte).toFixed(0)).join(', ')}`]);
}
const id = results.idle;
if (id) {
  rows.push([`idle CPU, ${id.panes} panes, ${id.seconds} s: serve`, `${id.servePct.toFixed(2)} %`, `runs: ${id.runs.map((x) => x.serve.toFixed(2)).join(', ')}`]);
  rows.push(['idle CPU: pty daemon', `${id.daemonPct.toFixed(2)} %`, `runs: ${id.runs.map((x) => x.daemon.toFixed(2)).join(', ')}`]);
}
const w0 = Math.max(...rows.map((r) => r[0].length));
const w1 = Math.max(...rows.map((r) => r[1].length));
results.loadavgAfter = os.loadavg();
const la = (x) => x.map((v) => v.toFixed(1)).join(' ');
console.log(`\nReprise browser benchmarks: headless Chromium, ${RENDERER} renderer, medians of ${RUNS} runs, CPU % of one core`);
console.log(`(${results.cpus} CPUs; load average before ${la(results.loadavgBefore)}, after ${la(results.loadavgAfter)})`);
console.log(`${'measure'.padEnd(w0)}  ${'median'.padStart(w1)}  detail`);
console.log(`${'-'.repeat(w0)}  ${'-'.repeat(w1)}  ------`);
for (const r of rows) console.log(`${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2]}`);
const out = artifactPath('bench', 'bench.json');
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`\n(${out})`);
