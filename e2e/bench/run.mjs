#!/usr/bin/env node
// Browser benchmarks for Reprise (not pass/fail). Each figure is the median over RUNS runs, next
// to an anchor measured in the same run on the same machine.
//
//   node e2e/bench/run.mjs [--runs N] [--renderer dom|webgl] [--socket worker|main] [--mib N] [--extra-mib N]
//       [--datasets plain,ls,utf8] [--integrity-mib N]
//       [--only throughput,latency,unpaced,reattach,loaded,ctrlc,integrity,idle,panes] [--panes N] [--panes-per-tab N]
//       [--panes-rate KB/s] [--panes-seconds S]
//
// The browser is Debian's Chromium driven over a CDP pipe (lib/cdp-pipe.mjs), not playwright,
// whose Network domain would copy every WebSocket frame to this process.
//
// The renderer defaults to DOM: headless Chromium has no GPU here, so xterm.js's WebGL renderer
// runs on the SwiftShader software rasterizer, which then dominates every figure (~1 MB/s).
//
// - throughput, per dataset: "plain" (--mib, default 32 MiB of ASCII lines), "ls" (coloured
//   `ls -lR --color=always`-style listing: SGR around permissions, sizes, dates and names) and
//   "utf8" (accented Latin, Greek, Cyrillic, CJK, Hangul, emoji) — the last two --extra-mib
//   each (default 16, or --mib if smaller) to keep the run short. `cat` of the file in a pane:
//   bytes rendered by xterm.js (its write callbacks, window.__reprise.stats()) per second from
//   Enter to the last byte. Anchors, all with the same numerator (the file with \n → \r\n, as
//   the pty sends it):
//     bare xterm.js — a bare xterm.js page in the same browser fed the same bytes from memory in
//       64 KiB chunks with the same 1 MiB / 256 KiB watermarks; for "plain" also with the other
//       core kept busy by a shell loop (about what the pty, daemon, host and the browser's
//       network side take during the cat, on this 2-core machine);
//     the app's page from memory — the pane's own xterm.js (window.__reprise.terminal) fed the
//       same way (lib/bare-xterm.mjs feedTerm), nothing through the host: the page's cost
//       without transport;
//     pty drain — `cat FILE` on a fresh pty whose master is read as fast as possible by a small
//       Python reader (lib/anchors.mjs ptyrun.py: pty.fork, select + 64 KiB os.read, output
//       discarded), fork → last byte; nothing renders: the kernel's pty and cat alone;
//     tmux — a private tmux server (3.3a here; -S socket in the home, no config, status off) with
//       a client attached on a pty of the pane's size that ptyrun.py drains; `clear; cat FILE;
//       tmux wait-for -S ch` typed into its shell, timed until `tmux wait-for ch` returns.
//   Plus, for "plain", the pty → WebSocket path without xterm.js (a bare WebSocket client).
// - latency: 200 single keys into `cat`; keydown → the echo written to xterm's buffer, measured
//   inside the page (no CDP round trip in the figure). Anchors: the browser floor, a bare
//   xterm.js echoing each key itself from a 0 ms timeout; and the pty echo over a bare WebSocket
//   client (no app, no xterm.js: input frame sent → output frame received). Also the app's own
//   path without the browser's input pipeline: __reprise.typeInto() (xterm.js's Terminal.input,
//   as for a key it has handled) → the echo in xterm's buffer.
// - unpaced: the same two figures in a second Chromium launched with --disable-frame-rate-limit
//   --disable-gpu-vsync (no headless frame pacing). An extra row only: users see the paced one.
// - loaded: the latency figure again while the pane's split neighbour runs `yes` (flooding);
//   anchor: the idle figure above.
// - ctrlc: `yes` in a pane for ~1 s, then Ctrl+C: keydown → the last output byte rendered
//   (output quiet for 1 s after it; the prompt must be back). Anchors: the same through ptyrun.py
//   (`yes` on a drained pty, ^C written to the master → last byte read), and tmux (`yes` in the
//   session, ^C written into the attached client's drained pty → last byte the client gets).
// - integrity: a node generator (lib/bench-data.mjs) writes --integrity-mib (default 1024) MiB
//   of numbered lines mixing ASCII, 2/3/4-byte UTF-8 and SGR, \r\n-terminated, under
//   `stty -opost`, into a pane; the page hashes (FNV-1a 32) exactly those bytes as they arrive
//   in the app's output frames (a wrapper installed before the app's scripts) and
//   compares with the generator's own sum; then checks rendered === written and counts U+FFFD
//   in the pane's buffer (its last 10,000 lines). The frames are seen on the page's WebSocket, or
//   in the batches of the socket worker when the app runs its socket in one. MB/s is Enter →
//   every byte rendered, one run (not RUNS: 1 GiB takes minutes); anchor: the same generator on
//   a drained pty (ptyrun.py, at most 256 MiB of it). RSS (VmRSS/VmHWM) of serve and the daemon,
//   and the page's JS heap, before and after.
// - reattach: a pane with 10,000 lines of scrollback; reload: bytes replayed to the page, and
//   the time from navigation start (and from the first replayed byte) until the last line is in
//   the buffer (__reprise.paneTail, polled every 2 ms; the whole 10,000-line buffer, as paneText
//   reads it, is not read in the poll, where it competed with the replay) and a frame painted.
// - idle: CPU of `reprise serve` + the pty daemon with 10 idle panes over 10 s (/proc utime+stime).
// - panes: a server and a Chromium of their own (the shells with an empty HOME: no rc files):
//   memory with 1, 10 and --panes (30) panes — PSS of every Chromium process, RSS of serve and
//   the daemon, the page's JS heap after a forced GC — per extra pane; CPU (/proc utime+stime) of
//   Chromium's renderer and GPU processes, serve and the daemon over --panes-seconds while one
//   pane prints --panes-rate KB/s (a paced Python writer: the figure is the page's cost, not the
//   core's limit), with that pane alone and with 30 panes open (it alone in its tab, the others
//   --panes-per-tab to a tab, split through layout.split), and idle. The 1-pane figure is taken
//   first, on a cold page: a ratio under 1 is the JIT warming up, not the other panes.
//
// Env: REPRISE_BIN (default build/bin/reprise), ARTIFACTS (default test-artifacts; results are
// also written to $ARTIFACTS/bench/bench.json), CHROMIUM (default /usr/bin/chromium), TMUX_BIN.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

let lib;
try {
  lib = await import('../lib/index.mjs');
} catch (e) {
  console.error(`bench: cannot load the e2e helpers (${e.message}); run "cd e2e && npm ci" first`);
  process.exit(1);
}
const { startBareXterm, feedTerm } = await import('../lib/bare-xterm.mjs');
const { makePlainText, makeLsText, makeUtf8Text, INTEGRITY_GENERATOR } = await import('../lib/bench-data.mjs');
const { ptyRun, startTmux, memOf } = await import('../lib/anchors.mjs');
const { launchPipeBrowser } = await import('../lib/cdp-pipe.mjs');
const {
  startServe, cleanup, makeHome, openPage, paneIds, typeInPane, waitForText, waitForPrompt, waitReady,
  focusPane, layout, daemonPid, cpuTicks, waitFor, sleep, artifactPath, treePanes, codeword, paneSel,
} = lib;
const execFileP = promisify(execFile);

// ---- options -------------------------------------------------------------------------------
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return def;
  return args[i].includes('=') ? args[i].split('=').slice(1).join('=') : args[i + 1];
};
const RUNS = Math.max(3, parseInt(opt('runs', '3'), 10));
const RENDERER = opt('renderer', 'dom');
// Where the app's WebSocket lives: 'main' (Chromium's default) or 'worker' (?socket=worker), to compare.
const SOCKET = opt('socket', 'main');
const MIB = parseFloat(opt('mib', '32'));
const EXTRA_MIB = parseFloat(opt('extra-mib', String(Math.min(16, MIB))));
const DATASETS = opt('datasets', 'plain,ls,utf8').split(',');
const INTEGRITY_MIB = parseFloat(opt('integrity-mib', '1024'));
const ONLY = new Set(opt('only', 'throughput,latency,unpaced,reattach,loaded,ctrlc,integrity,idle,panes').split(','));
/** Chromium switches that remove headless frame pacing (the "unpaced" rows). */
const UNPACED_FLAGS = opt('unpaced-flags', '--disable-frame-rate-limit,--disable-gpu-vsync').split(',');
const KEYS = 200;
/** Between two keys of the echo figures (ms): faster than anyone types, slower than a frame. */
const KEY_GAP_MS = 30;
const SCROLLBACK_LINES = 10000;
const IDLE_PANES = 10;
/** The many-panes section: this many panes in tabs of PANES_PER_TAB, one printing PANES_RATE KB/s. */
const PANES = parseInt(opt('panes', '30'), 10);
const PANES_PER_TAB = parseInt(opt('panes-per-tab', '10'), 10);
const PANES_RATE = parseInt(opt('panes-rate', '200'), 10);
const PANES_SECONDS = parseFloat(opt('panes-seconds', '10'));
const IDLE_SECONDS = 10;
const CLK_TCK = 100;
const FLOOD_SECONDS = 1;
const QUIET_MS = 1000;

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
const MAKERS = { plain: makePlainText, ls: makeLsText, utf8: makeUtf8Text };

const statsOf = (page, paneId) =>
  page.evaluate((id) => Object.values(window.__reprise.stats()).find((s) => s.paneId === id) || null, paneId);

// ---- throughput ----------------------------------------------------------------------------
/** The benchmark's data files, written once into the home. */
function writeData(server) {
  const out = {};
  for (const name of DATASETS) {
    if (!MAKERS[name]) throw new Error(`unknown dataset ${name} (plain, ls, utf8)`);
    const mib = name === 'plain' ? MIB : EXTRA_MIB;
    const data = MAKERS[name](Math.round(mib * 1024 * 1024));
    const file = path.join(server.home, `bench-${name}.txt`);
    writeFileSync(file, data.buf);
    // The pty turns every \n into \r\n.
    out[name] = { ...data, mib, file, expected: data.buf.length + data.lines };
  }
  return out;
}

/**
 * pty → daemon → host → WebSocket without xterm.js: a bare WebSocket client in a page on the
 * server's origin (no app loaded) attaches to the first terminal, runs `cat`, and acknowledges
 * every 16 KiB like the app does. Run before the app's page attaches anything.
 */
/**
 * A page on the server's origin with no app loaded, and in it window.rawClient(tid, token): a
 * bare WebSocket client of docs/wire.md attached to terminal tid (160×40) that acknowledges
 * every 16 KiB like the app (stream/flow.ts ACK_BYTES). Returns { ctx, page }.
 */
async function rawClientPage(browser, server) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${server.origin}/bench-blank`); // any page on the origin (a 404); the token goes on the WebSocket
  await page.evaluate(() => {
    window.rawClient = async (tid, token) => {
      const ws = new WebSocket(`ws://${location.host}/ws?token=${token}`);
      ws.binaryType = 'arraybuffer';
      await new Promise((ok, fail) => ((ws.onopen = ok), (ws.onerror = fail)));
      let id = 0, h = 0;
      const pend = {};
      const c = {
        unacked: 0,
        /** Called with the payload size of every output frame. */
        onOutput: null,
        ack() {
          if (!c.unacked) return;
          ws.send(JSON.stringify({ method: 'ack', params: { handle: h, bytes: c.unacked } }));
          c.unacked = 0;
        },
        call: (method, params) =>
          new Promise((r) => {
            pend[++id] = r;
            ws.send(JSON.stringify({ id, method, params }));
          }),
        input(text) {
          const b = new TextEncoder().encode(text);
          const fr = new Uint8Array(5 + b.length);
          fr[0] = 2;
          new DataView(fr.buffer).setUint32(1, h);
          fr.set(b, 5);
          ws.send(fr);
        },
        close: () => ws.close(),
      };
      ws.onmessage = (e) => {
        if (typeof e.data === 'string') {
          const m = JSON.parse(e.data);
          if (m.id && pend[m.id]) pend[m.id](m);
          return;
        }
        const n = e.data.byteLength - 5;
        c.unacked += n;
        // Acknowledged at once, as the app does when it has nothing left to draw (docs/wire.md
        // "Flow control"): the daemon's window can be as small as 8 KiB, resumed under 3/4 of it,
        // so a client that waits for a batch (it was 16 KiB, before that 100 KB) can wait forever.
        // It did: the raw run stalled for good, on main's binary as on the branch's.
        c.ack();
        if (c.onOutput) c.onOutput(n);
      };
      await c.call('hello', {});
      h = (await c.call('attach', { terminalId: tid, cols: 160, rows: 40 })).result.handle;
      return c;
    };
  });
  return { ctx, page };
}

/**
 * pty → daemon → host → WebSocket without xterm.js: a bare client (rawClientPage) runs `cat` of
 * the file in the first terminal. Run before the app's page attaches anything.
 */
async function benchRawWebSocket(browser, server, data) {
  const tid = (await lib.terminalsList(server.home))[0].id;
  const { ctx, page } = await rawClientPage(browser, server);
  const rates = [];
  for (let r = 0; r < RUNS; r++) {
    const res = await page.evaluate(
      async ({ tid, token, file, expected }) => {
        const c = await window.rawClient(tid, token);
        const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
        // Drain the replay, then type `clear; cat file` + Enter.
        await sleep(300);
        c.ack();
        let got = 0, t0 = 0, done;
        const fin = new Promise((r) => (done = r));
        c.onOutput = (n) => {
          got += n;
          if (t0 && got >= expected) done(performance.now() - t0);
        };
        t0 = performance.now();
        c.input(`clear; cat ${file}\r`);
        const ms = await fin;
        // Let the rest (the prompt) arrive, acknowledged, before the next run.
        await sleep(300);
        c.ack();
        c.close();
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

/**
 * The echo without the app: a bare WebSocket client in a page on the server's origin (like
 * benchRawWebSocket) runs `cat` in the first terminal and sends KEYS single letters as input
 * frames, timing send → the output frame with the echo, RUNS times. Run before the app's page
 * attaches anything.
 */
async function benchRawEcho(browser, server) {
  const tid = (await lib.terminalsList(server.home))[0].id;
  const { ctx, page } = await rawClientPage(browser, server);
  const runs = await page.evaluate(
    async ({ tid, token, keys, runs }) => {
      const c = await window.rawClient(tid, token);
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      let waiting = null;
      c.onOutput = (n) => {
        if (waiting && n > 0) waiting(performance.now());
      };
      await sleep(300);
      c.input('clear; cat\r');
      await sleep(500);
      c.ack();
      const out = [];
      const letters = 'abcdefghijklmnopqrstuvwxyz';
      for (let r = 0; r < runs; r++) {
        const s = [];
        for (let i = 0; i < keys; i++) {
          const got = new Promise((res) => (waiting = res));
          const t0 = performance.now();
          c.input(letters[i % letters.length]);
          s.push((await got) - t0);
          waiting = null;
          c.ack();
          await sleep(5);
        }
        out.push(s);
      }
      c.input('\x03');
      await sleep(300);
      c.ack();
      c.close();
      return out;
    },
    { tid, token: server.token, keys: KEYS, runs: RUNS },
  );
  await ctx.close();
  const r = runs.map((s) => ({ p50: pct(s, 50), p95: pct(s, 95) }));
  r.forEach((x, i) => log(`raw echo run ${i + 1}: p50 ${x.p50.toFixed(2)} ms, p95 ${x.p95.toFixed(2)} ms`));
  return { p50: median(r.map((x) => x.p50)), p95: median(r.map((x) => x.p95)), runs: r };
}

/** One Reprise run: `clear; cat file` in the pane, Enter → every byte rendered. */
async function throughputRun(server, page, pane, data) {
  const { file, expected } = data;
  const dpid = daemonPid(server.home);
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
  const cpu = ((cpuTicks(server.pid) + cpuTicks(dpid) - c0) / CLK_TCK / ((performance.now() - w0) / 1000)) * 100;
  return { rate: res.bytes / secs, secs, cpu };
}

/** One bare xterm.js run over window.data (already loaded in the page): lib/bare-xterm.mjs feed(). */
function bareRun(bp) {
  return bp.evaluate(() => window.feed(window.data));
}

/**
 * Every dataset, RUNS rounds each of: Reprise, bare xterm.js, pty drain, tmux (interleaved, so
 * that the load others put on the machine hits all of them alike).
 */
async function benchThroughput(browser, server, page, pane, datasets) {
  // The same bytes (with \r\n) served to a bare xterm.js page of the pane's size.
  const files = {};
  for (const d of Object.values(datasets)) files[`/${d.name}`] = Buffer.from(d.buf.toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
  const bare = await startBareXterm(files);
  const size = await page.evaluate((id) => {
    const r = document.querySelector(`[data-testid=pane][data-pane-id="${id}"] .xterm-host`).getBoundingClientRect();
    return { w: Math.round(r.width), h: Math.round(r.height) };
  }, pane);
  const ctx = await browser.newContext({ viewport: page.viewportSize() });
  const bp = await ctx.newPage();
  await bp.goto(`${bare.url}?w=${size.w}&h=${size.h}${RENDERER === 'dom' ? '&renderer=dom' : ''}`);
  await bp.waitForFunction(() => window.ready);
  const bareRenderer = await bp.evaluate(() => window.renderer);
  // The pane's grid (the bare page fits the same box with the same font) for the pty anchors.
  const grid = await bp.evaluate(() => ({ cols: term.cols, rows: term.rows }));
  const tm = await startTmux(server.home, grid);
  await tm.attach();
  const out = { grid, tmuxVersion: tm.version, rendererBare: bareRenderer, datasets: {} };
  try {
    for (const d of Object.values(datasets)) {
      await bp.evaluate(async (u) => {
        window.data = new Uint8Array(await (await fetch(u)).arrayBuffer());
      }, `/${d.name}`);
      // The same bytes in the app's page, for the "app page, from memory" anchor.
      await page.evaluate(async (u) => {
        window.__benchData = new Uint8Array(await (await fetch(u)).arrayBuffer());
      }, `${bare.url}${d.name}`);
      const r = { reprise: [], appLocal: [], bareXterm: [], bareBusy: [], ptyDrain: [], tmux: [], hostCpuPct: [] };
      const warnings = [];
      for (let i = 0; i < RUNS; i++) {
        const app = await throughputRun(server, page, pane, d);
        r.reprise.push(app.rate);
        r.hostCpuPct.push(app.cpu);
        const l = await page.evaluate(`(id) => (${feedTerm})(window.__reprise.terminal(id), window.__benchData)`, pane);
        r.appLocal.push(l.bytes / (l.ms / 1000));
        const b = await bareRun(bp);
        r.bareXterm.push(b.bytes / (b.ms / 1000));
        if (d.name === 'plain') {
          // The same with the machine's other core kept busy by a shell loop: what xterm.js alone
          // gets when something else needs a core, as Reprise's pipeline does during the cat.
          const hog = spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' });
          try {
            await sleep(100);
            const bb = await bareRun(bp);
            r.bareBusy.push(bb.bytes / (bb.ms / 1000));
          } finally {
            hog.kill('SIGKILL');
          }
        }
        const p = await ptyRun(server.home, ['cat', d.file], grid);
        if (p.bytes !== d.expected) warnings.push(`pty drain read ${p.bytes} bytes, expected ${d.expected}`);
        r.ptyDrain.push(d.expected / p.seconds);
        const ms = await tm.timeCat(d.file);
        r.tmux.push(d.expected / (ms / 1000));
        log(
          `throughput ${d.name} run ${i + 1}: reprise ${mb(app.rate)} MB/s (${app.secs.toFixed(2)} s), app page from memory ${mb(r.appLocal[i])}, bare xterm.js ${mb(r.bareXterm[i])}` +
            `${r.bareBusy.length ? `, with a busy core ${mb(r.bareBusy[i])}` : ''}, ` +
            `pty drain ${mb(r.ptyDrain[i])}, tmux ${mb(r.tmux[i])} MB/s`,
        );
      }
      const lastBare = await bp.evaluate(() => window.bufferText().split('\n').pop());
      if (lastBare !== d.last) warnings.push(`the bare page's last line is ${JSON.stringify(lastBare)}`);
      const screen = await tm.capture();
      if (!screen.includes(d.last)) warnings.push(`tmux's screen lacks the last line; it ends with ${JSON.stringify(screen.trimEnd().split('\n').slice(-2))}`);
      for (const w of warnings) log(`warning (${d.name}): ${w}`);
      await page.evaluate(() => delete window.__benchData);
      const m = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, median(v)]));
      out.datasets[d.name] = {
        mib: d.mib,
        bytes: d.expected,
        ...m,
        ratio: m.reprise / m.bareXterm,
        ratioAppLocal: m.reprise / m.appLocal,
        ratioBareBusy: r.bareBusy.length ? m.reprise / m.bareBusy : null,
        ratioPtyDrain: m.reprise / m.ptyDrain,
        ratioTmux: m.reprise / m.tmux,
        warnings,
        runs: r,
      };
    }
  } finally {
    await tm.close();
    await ctx.close();
    await bare.close();
  }
  out.rendererApp = (await statsOf(page, pane)).renderer;
  // The plain dataset's figures stay at the top level (the layout of earlier bench.json files).
  const p = out.datasets.plain;
  if (p) {
    Object.assign(out, {
      bytes: p.bytes, reprise: p.reprise, bareXterm: p.bareXterm, ratio: p.ratio, hostCpuPct: p.hostCpuPct,
      runs: { reprise: p.runs.reprise, bareXterm: p.runs.bareXterm, hostCpuPct: p.runs.hostCpuPct },
    });
  }
  return out;
}

// ---- keystroke echo latency ----------------------------------------------------------------
/**
 * Runs in the page before its scripts: wraps WebSocket, and Worker (the app's socket may live in
 * a worker that posts {t: 'batch', items} of host messages, binary frames transferred), so that
 * right after the app has handled each message or batch (and so written it to xterm)
 * window.__afterMessage() runs. Timing the echo this way needs no polling loop, which would
 * compete with the WebSocket for the main thread. window.__onFrame(data), when set, sees each
 * host message first (the integrity check hashes the output frames there).
 */
function latencyInitScript() {
  const after = () => {
    if (window.__afterMessage) window.__afterMessage();
  };
  const W = window.WebSocket;
  class BenchWebSocket extends W {
    set onmessage(fn) {
      super.onmessage = fn
        ? (ev) => {
            if (window.__onFrame) window.__onFrame(ev.data);
            fn.call(this, ev);
            after();
          }
        : null;
    }
    get onmessage() {
      return super.onmessage;
    }
  }
  window.WebSocket = BenchWebSocket;
  const Wk = window.Worker;
  if (!Wk) return;
  class BenchWorker extends Wk {
    set onmessage(fn) {
      super.onmessage = fn
        ? (ev) => {
            const d = ev.data;
            if (window.__onFrame && d && d.t === 'batch' && Array.isArray(d.items)) for (const it of d.items) window.__onFrame(it);
            fn.call(this, ev);
            after();
          }
        : null;
    }
    get onmessage() {
      return super.onmessage;
    }
  }
  window.Worker = BenchWorker;
}

const letters = 'abcdefghijklmnopqrstuvwxyz';

/** In the page, until window[obj][key] (or window[obj]) holds more than n items; false after 10 s. */
function pageWait(page, obj, key, n) {
  return page.evaluate(
    ({ obj, key, n }) =>
      new Promise((res) => {
        const end = performance.now() + 10000;
        const t = () => {
          const a = key ? window[obj][key] : window[obj];
          if (a.length > n) res(true);
          else if (performance.now() > end) res(false);
          else setTimeout(t, 4);
        };
        t();
      }),
    { obj, key, n },
  );
}

/** KEYS single keys into `cat` in pane, RUNS times: keydown → echo written (see latencyInitScript). */
async function measureEcho(page, pane, label) {
  await typeInPane(page, pane, 'clear; cat\n');
  await waitFor(async () => ((await statsOf(page, pane)) || {}).rendered > 0);
  // Let `cat` start: the shell echoes nothing more after the command line.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  await page.evaluate((id) => {
    const st = () => Object.values(window.__reprise.stats()).find((s) => s.paneId === id);
    const b = (window.__lat = { samples: [], drawn: [] });
    let cur = null;
    let toDraw = null;
    // Drawn: the renderer's next pass over the rows after the echo is in the buffer (xterm's
    // onRender follows the DOM renderer's row changes, or the WebGL draw, in the same frame).
    if (b.renderSub) b.renderSub.dispose();
    b.renderSub = window.__reprise.terminal(id).onRender(() => {
      if (!toDraw) return;
      b.drawn.push(performance.now() - toDraw.t0);
      toDraw = null;
    });
    // xterm.js parses the echo at once (it follows user input) or in a 0 ms timeout.
    const check = () => {
      if (!cur) return;
      if (st().rendered > cur.base) {
        b.samples.push(performance.now() - cur.t0);
        toDraw = cur;
        cur = null;
      } else setTimeout(check, 0);
    };
    window.__afterMessage = check;
    b.kd = () => {
      cur = { t0: performance.now(), base: st().rendered };
    };
    window.addEventListener('keydown', b.kd, true);
  }, pane);
  await focusPane(page, pane);
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const start = await page.evaluate(() => window.__lat.samples.length);
    const dstart = await page.evaluate(() => window.__lat.drawn.length);
    for (let i = 0; i < KEYS; i++) {
      await page.keyboard.press(letters[i % letters.length]);
      // Until the echo is drawn, waited for in the page: a CDP call every millisecond (the
      // earlier poll) makes the page render frames of its own and delayed the very echo measured.
      if (!(await pageWait(page, '__lat', 'drawn', dstart + i))) throw new Error(`latency: the echo of key ${i} not drawn within 10 s`);
      // Keys KEY_GAP_MS apart, as typed (a key sent while the last echo's frame is still
      // pending waits for that frame, which no typist sees).
      await sleep(KEY_GAP_MS);
    }
    await sleep(50);
    const s = await page.evaluate((n) => window.__lat.samples.slice(n), start);
    const d = await page.evaluate((n) => window.__lat.drawn.slice(n), dstart);
    runs.push({ p50: pct(s, 50), p95: pct(s, 95), max: Math.max(...s), drawnP50: pct(d, 50), drawnP95: pct(d, 95), drawn: d.length });
    log(
      `latency${label ? ` (${label})` : ''} run ${r + 1}: in the buffer p50 ${pct(s, 50).toFixed(2)} ms, p95 ${pct(s, 95).toFixed(2)} ms; ` +
        `drawn p50 ${pct(d, 50).toFixed(2)} ms, p95 ${pct(d, 95).toFixed(2)} ms (${d.length} draws)`,
    );
  }
  await page.evaluate(() => {
    window.__lat.renderSub.dispose();
    window.__afterMessage = null;
    window.removeEventListener('keydown', window.__lat.kd, true);
  });
  await page.keyboard.press('Control+C');
  await waitForPrompt(page, pane);
  return {
    keys: KEYS,
    p50: median(runs.map((x) => x.p50)),
    p95: median(runs.map((x) => x.p95)),
    drawnP50: median(runs.map((x) => x.drawnP50)),
    drawnP95: median(runs.map((x) => x.drawnP95)),
    runs,
  };
}

/**
 * The browser's floor: a bare xterm.js that echoes each key itself from a 0 ms timeout (no
 * network). After a key event Chromium renders a frame before it runs the next task, so any
 * asynchronous echo waits for that frame.
 */
async function measureFloor(browser, viewport, label) {
  const bare = await startBareXterm();
  const ctx = await browser.newContext({ viewport });
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
      if (!(await pageWait(bp, 'lat', null, start + i))) throw new Error(`latency floor: the echo of key ${i} not written within 10 s`);
      await sleep(KEY_GAP_MS);
    }
    const s = await bp.evaluate((n) => window.lat.slice(n), start);
    floor.push({ p50: pct(s, 50), p95: pct(s, 95) });
    log(`latency floor${label ? ` (${label})` : ''} run ${r + 1}: p50 ${pct(s, 50).toFixed(2)} ms, p95 ${pct(s, 95).toFixed(2)} ms`);
  }
  await ctx.close();
  await bare.close();
  return { p50: median(floor.map((x) => x.p50)), p95: median(floor.map((x) => x.p95)), runs: floor };
}

/**
 * The app's own path without the browser's input pipeline: window.__reprise.typeInto() types a
 * key as xterm.js does for a key it has handled (Terminal.input) → input frame → host → pty
 * echo → socket (worker) → xterm.js buffer, timed inside the page right after the app has
 * handled each message (window.__afterMessage). No polling loop competes for the thread.
 */
async function measureAppEcho(page, pane) {
  await typeInPane(page, pane, 'clear; cat\n');
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const s = await page.evaluate(
      async ({ id, keys }) => {
        const st = () => Object.values(window.__reprise.stats()).find((x) => x.paneId === id);
        const out = [];
        for (let i = 0; i < keys; i++) {
          const base = st().rendered;
          const t0 = performance.now();
          const done = new Promise((res) => {
            window.__afterMessage = () => {
              if (st().rendered > base) {
                window.__afterMessage = null;
                res(performance.now() - t0);
              }
            };
          });
          window.__reprise.typeInto(id, 'x');
          out.push(await done);
          await new Promise((res) => setTimeout(res, 10));
        }
        return out;
      },
      { id: pane, keys: KEYS },
    );
    runs.push({ p50: pct(s, 50), p95: pct(s, 95) });
    log(`latency (app path, typeInto) run ${r + 1}: p50 ${pct(s, 50).toFixed(2)} ms, p95 ${pct(s, 95).toFixed(2)} ms`);
  }
  await page.keyboard.press('Control+C');
  await waitForPrompt(page, pane);
  return { p50: median(runs.map((x) => x.p50)), p95: median(runs.map((x) => x.p95)), runs };
}

async function benchLatency(page, pane) {
  const echo = await measureEcho(page, pane);
  const app = await measureAppEcho(page, pane);
  const floor = await measureFloor(page.context().browser(), page.viewportSize());
  // The same with the cursor blinking (Settings → Appearance, kept in the page's localStorage;
  // read at load, so the page is reloaded).
  let blink = null;
  await setCursorBlink(page, true);
  try {
    await page.reload();
    await waitReady(page);
    await waitForPrompt(page, pane);
    blink = await measureEcho(page, pane, 'cursor blinking');
  } finally {
    await setCursorBlink(page, false);
    await page.reload();
    await waitReady(page);
    await waitForPrompt(page, pane);
  }
  return { ...echo, app, blink, floorP50: floor.p50, floorP95: floor.p95, floor: floor.runs };
}

/** Settings → Appearance's cursor blink, as the page keeps it (frontend/src/terminal/appearance.ts). */
function setCursorBlink(page, on) {
  return page.evaluate((on) => {
    let a = {};
    try {
      a = JSON.parse(localStorage.getItem('reprise.appearance') || '{}') || {};
    } catch {
      a = {};
    }
    a.cursorBlink = on;
    localStorage.setItem('reprise.appearance', JSON.stringify(a));
  }, on);
}

/**
 * The same echo and floor in a second Chromium without frame pacing (UNPACED_FLAGS). The main
 * page is closed meanwhile (every page on the server renders every pane's output); returns
 * the figures and a fresh main page.
 */
async function benchUnpaced(browser, url, page) {
  await page.context().close();
  const b2 = await launchPipeBrowser(UNPACED_FLAGS);
  let res;
  try {
    const p2 = await openPage(b2, url, { initScript: latencyInitScript });
    const [pane] = await paneIds(p2, { visibleOnly: true });
    await waitForPrompt(p2, pane);
    const echo = await measureEcho(p2, pane, 'unpaced');
    const floor = await measureFloor(b2, p2.viewportSize(), 'unpaced');
    res = { flags: UNPACED_FLAGS, ...echo, floorP50: floor.p50, floorP95: floor.p95, floor: floor.runs };
  } finally {
    await b2.close().catch(() => {});
  }
  const np = await openPage(browser, url, { initScript: latencyInitScript });
  return { res, page: np };
}

// ---- under load: echo while a neighbour floods, Ctrl+C under flood ------------------------
const paneStats = (page, id) => statsOf(page, id).then((s) => s || { written: 0, rendered: 0 });

/** Starts `yes` in pane and waits until its output flows. */
async function startFlood(page, pane) {
  const w0 = (await paneStats(page, pane)).written;
  await typeInPane(page, pane, 'clear; yes\n');
  await waitFor(async () => (await paneStats(page, pane)).written > w0 + 256 * 1024, { timeoutMs: 20000, message: `yes to flood pane ${pane}` });
}

async function benchUnderLoad(server, page, pane, idle) {
  await focusPane(page, pane);
  await page.keyboard.press('Control+Shift+D');
  await waitFor(async () => (await paneIds(page, { visibleOnly: true })).length === 2, { message: 'two panes after Ctrl+Shift+D' });
  await waitReady(page);
  const l = await layout(page);
  const other = treePanes(l.tabs.find((t) => t.id === l.activeTabId).root).find((p) => p !== pane);
  await waitForPrompt(page, other);
  const out = {};
  if (ONLY.has('loaded')) {
    await startFlood(page, other);
    const a = { ...(await paneStats(page, other)), t: performance.now() };
    const echo = await measureEcho(page, pane, 'while the other pane runs yes');
    const b = { ...(await paneStats(page, other)), t: performance.now() };
    const floodRate = (b.rendered - a.rendered) / ((b.t - a.t) / 1000);
    log(`loaded: the flooding pane rendered ${mb(floodRate)} MB/s meanwhile`);
    await focusPane(page, other);
    await page.keyboard.press('Control+C');
    await waitForPrompt(page, other, { timeoutMs: 60000 });
    out.loaded = { ...echo, floodRate, idleP50: idle?.p50, idleP95: idle?.p95 };
  }
  if (ONLY.has('ctrlc')) out.ctrlc = await benchCtrlC(server, page, other);
  // Close the neighbour again (its shell is idle, so no confirmation; answer one if asked).
  await page.click(`${paneSel(other)} [data-testid=close-pane]`);
  const ok = page.locator('[data-testid=confirm-ok]');
  if (await ok.waitFor({ state: 'visible', timeout: 1000 }).then(() => true, () => false)) await ok.click();
  await waitFor(async () => (await paneIds(page, { visibleOnly: true })).length === 1, { message: 'the split pane to close' });
  await waitReady(page);
  return out;
}

/**
 * RUNS times: `yes` in pane, FLOOD_SECONDS of flood, Ctrl+C; from the keydown to the last
 * output byte rendered (written and rendered counters still for QUIET_MS after it), then the
 * prompt must be there. Anchors: ptyrun.py (`yes` on a drained pty; ^C to the master) and tmux.
 */
async function benchCtrlC(server, page, pane) {
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    await startFlood(page, pane);
    await sleep(FLOOD_SECONDS * 1000);
    await page.evaluate(
      ({ id, quiet }) => {
        const st = () => Object.values(window.__reprise.stats()).find((s) => s.paneId === id);
        // tl: every change after the key, [ms after it, bytes received, bytes parsed] (where the time goes).
        const c = (window.__cc = { t0: 0, last: 0, done: null, tl: [], long: [] });
        // The page's long tasks (over 50 ms... Chromium reports those only) and the keydown's own
        // handling time (Event Timing), relative to the key: what kept the main thread.
        const po = new PerformanceObserver((l) => {
          for (const e of l.getEntries()) {
            if (!c.t0 || e.startTime + e.duration < c.t0) continue;
            if (e.entryType === 'event') c.long.push(`${e.name}:${(e.startTime - c.t0).toFixed(0)}+${(e.processingStart - e.startTime).toFixed(0)}/${(e.processingEnd - e.processingStart).toFixed(0)}/${e.duration.toFixed(0)}`);
            else c.long.push(`task:${(e.startTime - c.t0).toFixed(0)}+${e.duration.toFixed(0)}`);
          }
        });
        po.observe({ type: 'longtask', buffered: false });
        po.observe({ type: 'event', durationThreshold: 16, buffered: false });
        let pw = -1, pr = -1, base = 0;
        const kd = (e) => {
          if (!e.ctrlKey || e.key.toLowerCase() !== 'c') return;
          window.removeEventListener('keydown', kd, true);
          c.t0 = performance.now();
          base = st().written;
        };
        window.addEventListener('keydown', kd, true);
        const poll = () => {
          const s = st();
          const now = performance.now();
          if (s.written !== pw || s.rendered !== pr) {
            if (c.t0 && c.tl.length < 400) c.tl.push([+(now - c.t0).toFixed(1), s.written - base, s.rendered - base]);
            c.last = now;
            pw = s.written;
            pr = s.rendered;
          }
          if (c.t0 && now - Math.max(c.last, c.t0) >= quiet && s.rendered === s.written) {
            po.disconnect();
            c.done = { stopMs: Math.max(0, c.last - c.t0), bytesAfter: s.written - base, tl: c.tl, long: c.long };
            return;
          }
          setTimeout(poll, 2);
        };
        poll();
      },
      { id: pane, quiet: QUIET_MS },
    );
    await page.keyboard.press('Control+C');
    const res = await waitFor(() => page.evaluate(() => window.__cc.done), { timeoutMs: 60000, intervalMs: 100, message: 'the flood to stop after Ctrl+C' });
    await waitForPrompt(page, pane, { timeoutMs: 10000 });
    runs.push(res);
    log(`ctrl+c run ${r + 1}: flood stopped ${res.stopMs.toFixed(1)} ms after the keydown (${(res.bytesAfter / 1024).toFixed(0)} KiB after it)`);
    log(`ctrl+c run ${r + 1} timeline [ms, bytes received, bytes parsed]: ${res.tl.map((x) => x.join('/')).join(' ')}; long tasks and slow events [name:start+wait/handler/duration ms]: ${res.long.join(' ') || 'none'}`);
  }
  const pty = [];
  for (let r = 0; r < RUNS; r++) {
    const p = await ptyRun(server.home, ['yes'], { interruptAfter: FLOOD_SECONDS, quiet: QUIET_MS / 1000 });
    pty.push(p);
    log(`ctrl+c run ${r + 1}: pty drain ${p.stopMs.toFixed(1)} ms (${p.bytesAfter} bytes after ^C)`);
  }
  const tmx = [];
  const tm = await startTmux(server.home, { sockName: 'tmux-cc.sock' });
  try {
    for (let r = 0; r < RUNS; r++) {
      const p = await tm.ctrlC({ interruptAfter: FLOOD_SECONDS, quiet: QUIET_MS / 1000 });
      tmx.push(p);
      log(`ctrl+c run ${r + 1}: tmux ${p.stopMs.toFixed(1)} ms (${p.bytesAfter} bytes after ^C)`);
      const screen = await tm.capture();
      if (!/\^C\s*\n.*[$#]\s*$/s.test(screen.trimEnd())) log(`warning: tmux screen after ^C ends with ${JSON.stringify(screen.trimEnd().slice(-40))}`);
    }
  } finally {
    await tm.close();
  }
  const ms = runs.map((x) => x.stopMs);
  return {
    floodSeconds: FLOOD_SECONDS,
    p50: median(ms),
    max: Math.max(...ms),
    bytesAfter: median(runs.map((x) => x.bytesAfter)),
    ptyDrainP50: median(pty.map((x) => x.stopMs)),
    ptyDrainMax: Math.max(...pty.map((x) => x.stopMs)),
    tmuxP50: median(tmx.map((x) => x.stopMs)),
    tmuxMax: Math.max(...tmx.map((x) => x.stopMs)),
    runs,
    ptyDrain: pty,
    tmux: tmx,
  };
}

// ---- integrity of a large stream -----------------------------------------------------------
/** VmRSS/VmHWM of serve and the daemon, and the page's JS heap (MiB). */
async function memSnapshot(server, page) {
  const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : null));
  return { serve: memOf(server.pid), daemon: memOf(daemonPid(server.home)), pageHeapMiB: heap === null ? null : heap / 1048576 };
}

async function benchIntegrity(server, page, pane) {
  const limit = Math.round(INTEGRITY_MIB * 1024 * 1024);
  const gen = path.join(server.home, 'integrity-gen.mjs');
  writeFileSync(gen, INTEGRITY_GENERATOR);
  const tag = codeword('integ');
  const node = process.execPath;
  const sum = JSON.parse((await execFileP(node, [gen, String(limit), tag, '--sum'], { timeout: 600000 })).stdout);
  log(`integrity: generator ${sum.bytes} bytes, FNV-1a ${sum.fnv.toString(16)}`);
  // Anchor: the same generator on a drained pty, no output processing either (at most 256 MiB:
  // the rate, not the size, is the figure).
  const anchor = await ptyRun(server.home, ['sh', '-c', `stty -opost; exec ${node} ${gen} ${Math.min(limit, 256 * 1048576)} ${tag}`]);
  const anchorRate = anchor.bytes / anchor.seconds;
  log(`integrity: pty drain ${mb(anchorRate)} MB/s (${anchor.bytes} bytes)`);
  await typeInPane(page, pane, 'clear\n');
  await waitForPrompt(page, pane);
  const before = await memSnapshot(server, page);
  const handle = (await statsOf(page, pane)).handle;
  await typeInPane(page, pane, `clear; stty -opost; ${node} ${gen} ${limit} ${tag}; stty opost`);
  await page.evaluate(
    ({ id, handle, tag, L }) => {
      const st = () => Object.values(window.__reprise.stats()).find((s) => s.paneId === id);
      const marker = '\x1b]7777;' + tag + '\x07';
      // windows-1252 decodes one byte to one UTF-16 unit, so string indexes are byte offsets.
      const dec = new TextDecoder('windows-1252');
      const I = (window.__integ = { found: false, carry: '', h: 0x811c9dc5 | 0, n: 0, frames: 0, t0: 0, tHashed: 0, tDone: 0, writtenAtHashed: -1 });
      window.__onFrame = (ab) => {
        if (!(ab instanceof ArrayBuffer) || ab.byteLength <= 5) return;
        const u = new Uint8Array(ab);
        if (u[0] !== 1 || ((u[1] << 24) | (u[2] << 16) | (u[3] << 8) | u[4]) >>> 0 !== handle) return;
        I.frames++;
        let i = 5;
        if (!I.found) {
          const s = I.carry + dec.decode(u.subarray(5));
          const k = s.indexOf(marker);
          if (k < 0) {
            I.carry = s.slice(-marker.length);
            return;
          }
          i = 5 + k + marker.length - I.carry.length;
          I.found = true;
        }
        if (I.n >= L) return;
        const end = Math.min(u.length, i + (L - I.n));
        let h = I.h;
        for (let j = i; j < end; j++) h = Math.imul(h ^ u[j], 16777619);
        I.h = h;
        I.n += end - i;
        if (I.n >= L) I.tHashed = performance.now();
      };
      window.__afterMessage = () => {
        if (I.tHashed && I.writtenAtHashed < 0) I.writtenAtHashed = st().written;
      };
      const poll = () => {
        if (I.writtenAtHashed >= 0 && st().rendered >= I.writtenAtHashed) I.tDone = performance.now();
        else setTimeout(poll, 10);
      };
      window.addEventListener(
        'keydown',
        function kd(e) {
          if (e.key !== 'Enter') return;
          window.removeEventListener('keydown', kd, true);
          I.t0 = performance.now();
          poll();
        },
        true,
      );
    },
    { id: pane, handle, tag, L: sum.bytes },
  );
  const cpu0 = cpuTicks(server.pid) + cpuTicks(daemonPid(server.home));
  const w0 = performance.now();
  await page.keyboard.press('Enter');
  const res = await waitFor(() => page.evaluate(() => (window.__integ.tDone ? { ...window.__integ, carry: undefined } : null)), {
    timeoutMs: 60000 + sum.bytes / 1000, // ≥ 1 MB/s
    intervalMs: 250,
    message: async () => `the integrity stream (${JSON.stringify(await page.evaluate(() => ({ ...window.__integ, carry: undefined })))})`,
  });
  const hostCpuPct = ((cpuTicks(server.pid) + cpuTicks(daemonPid(server.home)) - cpu0) / CLK_TCK / ((performance.now() - w0) / 1000)) * 100;
  await page.evaluate(() => {
    window.__onFrame = null;
    window.__afterMessage = null;
  });
  await waitForText(page, pane, sum.last, { timeoutMs: 60000 });
  await waitForPrompt(page, pane, { timeoutMs: 30000 });
  // Nothing discarded: once output stops, everything written to xterm has been rendered.
  let settled = null;
  await waitFor(
    async () => {
      const s = await statsOf(page, pane);
      const same = settled && s.written === settled.written && s.rendered === s.written;
      settled = s;
      return same;
    },
    { timeoutMs: 30000, intervalMs: 300, message: () => `rendered === written (${JSON.stringify(settled)})` },
  ).catch((e) => log(`warning: ${e.message}`));
  const scan = await page.evaluate((id) => {
    const t = window.__reprise.paneText(id) || '';
    return { fffd: (t.match(/\uFFFD/g) || []).length, lines: t.split('\n').length };
  }, pane);
  const after = await memSnapshot(server, page);
  const secs = (res.tDone - res.t0) / 1000;
  const out = {
    mib: INTEGRITY_MIB,
    bytes: sum.bytes,
    received: res.n,
    frames: res.frames,
    fnvExpected: sum.fnv.toString(16).padStart(8, '0'),
    fnvReceived: (res.h >>> 0).toString(16).padStart(8, '0'),
    checksumEqual: res.found && res.n === sum.bytes && res.h >>> 0 === sum.fnv,
    renderedEqualsWritten: !!settled && settled.rendered === settled.written,
    written: settled?.written,
    rendered: settled?.rendered,
    fffd: scan.fffd,
    linesScanned: scan.lines,
    rate: sum.bytes / secs,
    seconds: secs,
    ptyDrain: anchorRate,
    ratioPtyDrain: sum.bytes / secs / anchorRate,
    hostCpuPct,
    memBefore: before,
    memAfter: after,
  };
  log(
    `integrity: ${out.bytes} bytes in ${secs.toFixed(1)} s = ${mb(out.rate)} MB/s, checksum ${out.checksumEqual ? 'equal' : `DIFFERENT (${out.fnvReceived} ≠ ${out.fnvExpected}, ${res.n} bytes)`}, ` +
      `rendered === written ${out.renderedEqualsWritten}, U+FFFD ${scan.fffd} in ${scan.lines} lines`,
  );
  return out;
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
        // Look at the end of the buffer only once the stream has paused and all of it is rendered.
        if (s && s.written > 0 && s.rendered === s.written && s.written === prev && (r.paneTail(id, 3) || '').includes(last)) {
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

// ---- many panes: CPU of the page with 30 panes and one streaming, memory per pane ------------
/** Descendant pids of pid (pid included). */
function treeOf(pid) {
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const c of lib.childrenOf(p)) walk(c);
  };
  walk(pid);
  return out;
}
/** Chromium's processes under its browser pid by --type (renderer, gpu-process, utility, browser). */
function chromiumProcs(browserPid) {
  const by = {};
  for (const p of treeOf(browserPid)) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('chrom')) continue;
    const m = cmd.match(/--type=([a-z-]+)/);
    (by[m ? m[1] : 'browser'] ??= []).push(p);
  }
  return by;
}
const ticksOf = (pids) => pids.reduce((a, p) => a + (() => { try { return cpuTicks(p); } catch { return 0; } })(), 0);
/** PSS (KiB) of pids (smaps_rollup). */
function pssOf(pids) {
  let kib = 0;
  for (const p of pids) {
    try {
      const m = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m);
      if (m) kib += parseInt(m[1], 10);
    } catch {
      // exited
    }
  }
  return kib;
}

/**
 * One fresh server and one fresh Chromium: memory with 1, 10 and PANES panes (the first pane
 * alone in its tab, the others in tabs of PANES_PER_TAB split panes, made through layout.split
 * and layout.newTab as the buttons do), and the CPU of the
 * page's renderer (Chromium's renderer and GPU processes, /proc utime+stime) over
 * PANES_SECONDS while one pane of the active tab prints PANES_RATE KB/s (a paced Python
 * writer, so the figure is not the core's limit) — with 1 pane and with PANES panes — and with
 * nothing printing. Serve and the daemon's CPU and RSS alongside.
 */
async function benchPanes(url0) {
  const home = makeHome();
  // The shells get a HOME of their own (no rc files): 30 interactive shells of the user's own
  // rc (pyenv, completions) start for minutes on a loaded 2-core machine and measure that rc.
  const shellHome = path.join(home, 'u');
  mkdirSync(shellHome);
  const server = await startServe({ home, label: 'bench-panes', env: { HOME: shellHome } });
  const b = await launchPipeBrowser();
  try {
    const u = new URL(server.url);
    for (const [k, v] of new URL(url0).searchParams) u.searchParams.set(k, v);
    const page = await openPage(b, u.href);
    const [first] = await paneIds(page);
    await waitForPrompt(page, first);
    const writer = path.join(home, 'paced.py');
    writeFileSync(
      writer,
      'import sys, time\n' +
        'rate, n = int(sys.argv[1]) * 1000, 0\n' +
        "line = ''.join(chr(33 + (i * 7) % 90) for i in range(79)) + '\\n'\n" +
        'batch = line * max(1, rate // 50 // len(line))\n' +
        't0 = time.monotonic()\n' +
        'while True:\n' +
        '    sys.stdout.write(batch); sys.stdout.flush(); n += 1\n' +
        '    time.sleep(max(0, t0 + n / 50 - time.monotonic()))\n',
    );
    const procs = () => chromiumProcs(b.pid);
    const mem = async (label) => {
      await sleep(3000);
      await page.cdp('HeapProfiler.collectGarbage').catch(() => {});
      await sleep(500);
      const pr = procs();
      const all = Object.values(pr).flat();
      const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
      const m = {
        panes: (await paneIds(page)).length,
        browserPssKiB: pssOf(all),
        rendererPssKiB: pssOf(pr.renderer ?? []),
        serveRssKiB: memOf(server.pid)?.rssKiB ?? 0,
        daemonRssKiB: memOf(daemonPid(home))?.rssKiB ?? 0,
        heapKiB: heap / 1024,
      };
      log(
        `panes memory (${label}): ${m.panes} panes: browser PSS ${(m.browserPssKiB / 1024).toFixed(1)} MiB (renderer ${(m.rendererPssKiB / 1024).toFixed(1)}), ` +
          `JS heap ${(m.heapKiB / 1024).toFixed(1)} MiB, serve RSS ${(m.serveRssKiB / 1024).toFixed(1)} MiB, daemon RSS ${(m.daemonRssKiB / 1024).toFixed(1)} MiB`,
      );
      return m;
    };
    /** CPU % of one core over PANES_SECONDS: renderer, gpu, serve, daemon; and bytes the streaming pane rendered. */
    const cpu = async (label, streamPane) => {
      const res = [];
      for (let r = 0; r < RUNS; r++) {
        const pr = procs();
        const pids = { renderer: pr.renderer ?? [], gpu: pr['gpu-process'] ?? [], serve: [server.pid], daemon: [daemonPid(home)] };
        const s0 = streamPane ? (await paneStats(page, streamPane)).rendered : 0;
        const a = Object.fromEntries(Object.entries(pids).map(([k, v]) => [k, ticksOf(v)]));
        const t0 = performance.now();
        await sleep(PANES_SECONDS * 1000);
        const secs = (performance.now() - t0) / 1000;
        const x = Object.fromEntries(Object.entries(pids).map(([k, v]) => [k, ((ticksOf(v) - a[k]) / CLK_TCK / secs) * 100]));
        x.rate = streamPane ? ((await paneStats(page, streamPane)).rendered - s0) / secs : 0;
        res.push(x);
        log(
          `panes cpu (${label}) run ${r + 1}: renderer ${x.renderer.toFixed(1)} %, gpu ${x.gpu.toFixed(1)} %, serve ${x.serve.toFixed(1)} %, daemon ${x.daemon.toFixed(1)} %` +
            (streamPane ? `; the streaming pane rendered ${(x.rate / 1000).toFixed(0)} KB/s` : ''),
        );
      }
      const out = {};
      for (const k of Object.keys(res[0])) out[k] = median(res.map((x) => x[k]));
      out.runs = res;
      return out;
    };
    const stream = async (on) => {
      if (on) {
        await typeInPane(page, first, `clear; python3 ${writer} ${PANES_RATE}\n`);
        await waitFor(async () => (await paneStats(page, first)).rendered > PANES_RATE * 1000, { timeoutMs: 20000, message: 'the paced writer to print' });
        await sleep(1000);
      } else {
        await focusPane(page, first);
        await page.keyboard.press('Control+C');
        await waitForPrompt(page, first, { timeoutMs: 30000 });
      }
    };
    const out = { rateKBs: PANES_RATE, seconds: PANES_SECONDS, perTab: PANES_PER_TAB, memory: [] };
    out.memory.push(await mem('1 pane'));
    out.idle1 = await cpu('1 pane, idle');
    await stream(true);
    out.stream1 = await cpu('1 pane, one streaming', first);
    await stream(false);
    // Grow to PANES: PANES_PER_TAB per tab, each tab's panes split evenly (the oldest pane is split next).
    const split = async (paneId, direction) => {
      const before = new Set((await layout(page)).tabs.flatMap((t) => treePanes(t.root)));
      const l = await lib.rpc(page, 'layout.split', { paneId, direction });
      return l.tabs.flatMap((t) => treePanes(t.root)).find((p) => !before.has(p));
    };
    const total = async () => (await layout(page)).tabs.reduce((a, t) => a + treePanes(t.root).length, 0);
    // The streaming pane keeps its tab to itself (the same size as alone, so the two CPU figures
    // draw the same cells); the other panes fill tabs of PANES_PER_TAB.
    const firstTab = (await layout(page)).activeTabId;
    const queue = [];
    let inTab = PANES_PER_TAB;
    while ((await total()) < PANES) {
      if (inTab >= PANES_PER_TAB) {
        const before = new Set((await layout(page)).tabs.map((t) => t.id));
        const l = await lib.rpc(page, 'layout.newTab', {});
        const tab = l.tabs.find((t) => !before.has(t.id));
        queue.length = 0;
        queue.push({ id: treePanes(tab.root)[0], depth: 0 });
        inTab = 1;
      } else {
        const p = queue.shift();
        const id = await split(p.id, p.depth % 2 ? 'column' : 'row');
        queue.push({ id: p.id, depth: p.depth + 1 }, { id, depth: p.depth + 1 });
        inTab++;
      }
      if ((await total()) === 10) {
        await waitReady(page, { timeoutMs: 60000 });
        out.memory.push(await mem('10 panes'));
      }
    }
    await waitReady(page, { timeoutMs: 120000 });
    // Back to the first tab (the streaming pane's), every shell at its prompt.
    await lib.rpc(page, 'layout.activateTab', { tabId: firstTab });
    const all = (await layout(page)).tabs.flatMap((t) => treePanes(t.root));
    for (const p of all) await waitForPrompt(page, p, { timeoutMs: 30000 });
    out.memory.push(await mem(`${PANES} panes`));
    out.idleN = await cpu(`${PANES} panes, idle`);
    await stream(true);
    out.streamN = await cpu(`${PANES} panes, one streaming`, first);
    await stream(false);
    out.panes = all.length;
    return out;
  } finally {
    await b.close().catch(() => {});
    await cleanup({ server, home, label: 'bench-panes' });
  }
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
const results = {
  runs: RUNS,
  renderer: RENDERER,
  date: new Date().toISOString(),
  cpus: os.cpus().length,
  loadavgBefore: os.loadavg(),
  options: { mib: MIB, extraMib: EXTRA_MIB, datasets: DATASETS, integrityMib: INTEGRITY_MIB, only: [...ONLY], unpacedFlags: UNPACED_FLAGS },
};
const home = makeHome();
let server;
let browser;
const started = performance.now();
const timings = {};
const timed = async (name, fn) => {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round((performance.now() - t0) / 1000);
    log(`${name}: ${timings[name]} s`);
  }
};
try {
  server = await startServe({ home, label: 'bench' });
  // Not playwright: see lib/cdp-pipe.mjs (it would report every WebSocket frame to this process).
  browser = await launchPipeBrowser();
  const data = ONLY.has('throughput') ? writeData(server) : {};
  const raw = data.plain ? await timed('raw WebSocket', () => benchRawWebSocket(browser, server, data.plain)) : null;
  const rawEcho = ONLY.has('latency') ? await timed('raw echo', () => benchRawEcho(browser, server)) : null;
  // Page options go in the query; the token stays in the fragment.
  const u = new URL(server.url);
  if (RENDERER === 'dom') u.searchParams.set('renderer', 'dom');
  if (SOCKET === 'worker') u.searchParams.set('socket', 'worker');
  const url = u.href;
  // The many-panes section has a server and a browser of its own.
  const mainPage = [...ONLY].some((x) => x !== 'panes');
  let page = mainPage ? await openPage(browser, url, { initScript: latencyInitScript }) : null;
  const [pane] = mainPage ? await paneIds(page) : [];
  if (mainPage) await waitForPrompt(page, pane);
  if (ONLY.has('throughput')) {
    results.throughput = await timed('throughput', () => benchThroughput(browser, server, page, pane, data));
    results.throughput.rawWebSocket = raw;
  }
  if (ONLY.has('latency')) results.latency = { ...(await timed('latency', () => benchLatency(page, pane))), rawEcho };
  if (ONLY.has('unpaced')) {
    const u = await timed('unpaced latency', () => benchUnpaced(browser, url, page));
    results.unpaced = u.res;
    page = u.page;
    await waitForPrompt(page, pane);
  }
  if (ONLY.has('reattach')) results.reattach = await timed('reattach', () => benchReattach(server, page, pane));
  if (ONLY.has('loaded') || ONLY.has('ctrlc')) Object.assign(results, await timed('under load', () => benchUnderLoad(server, page, pane, results.latency)));
  if (ONLY.has('integrity')) results.integrity = await timed('integrity', () => benchIntegrity(server, page, pane));
  if (ONLY.has('idle')) results.idle = await timed('idle', () => benchIdle(server, page));
  if (ONLY.has('panes')) results.panes = await timed('many panes', () => benchPanes(url));
} finally {
  await browser?.close().catch(() => {});
  await cleanup({ server, home, label: 'bench' });
}
results.seconds = Math.round((performance.now() - started) / 1000);
results.sectionSeconds = timings;

// ---- report --------------------------------------------------------------------------------
const rows = [];
const runsOf = (xs, f = mb) => `runs: ${xs.map(f).join(', ')}`;
const ms2 = (x) => x.toFixed(2);
const ms1 = (x) => x.toFixed(1);
const t = results.throughput;
if (t) {
  const names = { plain: 'plain text', ls: 'coloured ls -lR', utf8: 'UTF-8 text' };
  for (const [name, d] of Object.entries(t.datasets)) {
    rows.push([`throughput ${names[name]}, cat ${d.mib} MiB → xterm.js (${t.rendererApp})`, `${mb(d.reprise)} MB/s`, runsOf(d.runs.reprise)]);
    rows.push([`  bare xterm.js from memory (${t.rendererBare})`, `${mb(d.bareXterm)} MB/s`, `reprise/this ${d.ratio.toFixed(2)}; ${runsOf(d.runs.bareXterm)}`]);
    rows.push([`  the app's page, its xterm.js fed from memory (${t.rendererApp})`, `${mb(d.appLocal)} MB/s`, `reprise/this ${d.ratioAppLocal.toFixed(2)}; ${runsOf(d.runs.appLocal)}`]);
    if (d.ratioBareBusy !== null) rows.push(['  bare xterm.js from memory, the other core busy (sh loop)', `${mb(d.bareBusy)} MB/s`, `reprise/this ${d.ratioBareBusy.toFixed(2)}; ${runsOf(d.runs.bareBusy)}`]);
    rows.push(['  pty drain (cat on a pty, Python reader, nothing renders)', `${mb(d.ptyDrain)} MB/s`, `reprise/this ${d.ratioPtyDrain.toFixed(3)}; ${runsOf(d.runs.ptyDrain)}`]);
    rows.push([`  ${t.tmuxVersion}, client attached (${t.grid.cols}×${t.grid.rows}, pty drained)`, `${mb(d.tmux)} MB/s`, `reprise/this ${d.ratioTmux.toFixed(2)}; ${runsOf(d.runs.tmux)}`]);
    rows.push(['  CPU of serve + daemon during the cat', `${d.hostCpuPct.toFixed(0)} %`, runsOf(d.runs.hostCpuPct, (x) => x.toFixed(0))]);
    if (name === 'plain' && t.rawWebSocket) rows.push(['  pty → WebSocket alone (no xterm.js, acks every 16 KiB)', `${mb(t.rawWebSocket.rate)} MB/s`, runsOf(t.rawWebSocket.runs)]);
    if (d.warnings.length) rows.push(['  WARNINGS', String(d.warnings.length), d.warnings.join('; ')]);
  }
}
const lt = results.latency;
if (lt) {
  rows.push([`keystroke echo latency p50 (${lt.keys} keys × ${RUNS})`, `${ms2(lt.p50)} ms`, runsOf(lt.runs, (x) => ms2(x.p50))]);
  rows.push(['keystroke echo latency p95', `${ms2(lt.p95)} ms`, runsOf(lt.runs, (x) => ms2(x.p95))]);
  rows.push(['key → echo drawn p50 (xterm onRender after the echo), cursor steady', `${ms2(lt.drawnP50)} ms`, runsOf(lt.runs, (x) => ms2(x.drawnP50))]);
  rows.push(['key → echo drawn p95, cursor steady', `${ms2(lt.drawnP95)} ms`, runsOf(lt.runs, (x) => ms2(x.drawnP95))]);
  if (lt.blink) {
    rows.push(['key → echo drawn p50, cursor blinking', `${ms2(lt.blink.drawnP50)} ms`, `blink/steady ${(lt.blink.drawnP50 / lt.drawnP50).toFixed(2)}; ${runsOf(lt.blink.runs, (x) => ms2(x.drawnP50))}`]);
    rows.push(['key → echo in the buffer p50, cursor blinking', `${ms2(lt.blink.p50)} ms`, runsOf(lt.blink.runs, (x) => ms2(x.p50))]);
  }
  rows.push(['  browser floor p50 (bare xterm.js, echo from a 0 ms timeout)', `${ms2(lt.floorP50)} ms`, `reprise/this ${(lt.p50 / lt.floorP50).toFixed(2)}; ${runsOf(lt.floor, (x) => ms2(x.p50))}`]);
  rows.push(['  browser floor p95', `${ms2(lt.floorP95)} ms`, runsOf(lt.floor, (x) => ms2(x.p95))]);
  if (lt.app) {
    rows.push(['  app path p50: key handled by xterm.js → echo in its buffer (typeInto)', `${ms2(lt.app.p50)} ms`, `target <= 2 ms; ${runsOf(lt.app.runs, (x) => ms2(x.p50))}`]);
    rows.push(['  app path p95', `${ms2(lt.app.p95)} ms`, runsOf(lt.app.runs, (x) => ms2(x.p95))]);
  }
  if (lt.rawEcho) {
    rows.push(['  pty echo over a bare WebSocket (no app, no xterm.js) p50', `${ms2(lt.rawEcho.p50)} ms`, runsOf(lt.rawEcho.runs, (x) => ms2(x.p50))]);
    rows.push(['  pty echo over a bare WebSocket p95', `${ms2(lt.rawEcho.p95)} ms`, runsOf(lt.rawEcho.runs, (x) => ms2(x.p95))]);
  }
}
const up = results.unpaced;
if (up) {
  rows.push(['UNPACED Chromium (extra row; users see the paced figures above):', '', up.flags.join(' ')]);
  rows.push(['  echo latency p50, unpaced', `${ms2(up.p50)} ms`, runsOf(up.runs, (x) => ms2(x.p50))]);
  rows.push(['  echo latency p95, unpaced', `${ms2(up.p95)} ms`, runsOf(up.runs, (x) => ms2(x.p95))]);
  rows.push(['  browser floor p50, unpaced', `${ms2(up.floorP50)} ms`, `reprise/this ${(up.p50 / up.floorP50).toFixed(2)}; ${runsOf(up.floor, (x) => ms2(x.p50))}`]);
  rows.push(['  browser floor p95, unpaced', `${ms2(up.floorP95)} ms`, runsOf(up.floor, (x) => ms2(x.p95))]);
}
const ld = results.loaded;
if (ld) {
  rows.push([`echo latency p50 while the split neighbour runs yes`, `${ms2(ld.p50)} ms`, `${ld.idleP50 ? `/idle ${(ld.p50 / ld.idleP50).toFixed(2)}; ` : ''}${runsOf(ld.runs, (x) => ms2(x.p50))}`]);
  rows.push(['echo latency p95 while the neighbour runs yes', `${ms2(ld.p95)} ms`, `${ld.idleP95 ? `/idle ${(ld.p95 / ld.idleP95).toFixed(2)}; ` : ''}${runsOf(ld.runs, (x) => ms2(x.p95))}`]);
  rows.push(['  the flooding neighbour meanwhile', `${mb(ld.floodRate)} MB/s`, 'rendered']);
}
const cc = results.ctrlc;
if (cc) {
  rows.push([`Ctrl+C after ${cc.floodSeconds} s of yes: keydown → flood stopped, p50`, `${ms1(cc.p50)} ms`, `max ${ms1(cc.max)}; ${(cc.bytesAfter / 1024).toFixed(0)} KiB after the key (median); ${runsOf(cc.runs, (x) => ms1(x.stopMs))}`]);
  rows.push(['  pty drain (^C to the master → last byte read), p50', `${ms1(cc.ptyDrainP50)} ms`, `max ${ms1(cc.ptyDrainMax)}; ${runsOf(cc.ptyDrain, (x) => ms1(x.stopMs))}`]);
  rows.push(['  tmux (^C into the client pty → last byte to the client), p50', `${ms1(cc.tmuxP50)} ms`, `max ${ms1(cc.tmuxMax)}; reprise/this ${(cc.p50 / cc.tmuxP50).toFixed(1)}; ${runsOf(cc.tmux, (x) => ms1(x.stopMs))}`]);
}
const ig = results.integrity;
if (ig) {
  const m = (x) => (x ? `${(x.rssKiB / 1024).toFixed(0)}/${(x.hwmKiB / 1024).toFixed(0)}` : '?');
  rows.push([`integrity ${ig.mib} MiB ASCII+UTF-8+SGR → xterm.js (one run)`, `${mb(ig.rate)} MB/s`, `${ig.bytes} bytes, ${ig.seconds.toFixed(1)} s; serve + daemon CPU ${ig.hostCpuPct.toFixed(0)} %`]);
  rows.push(['  pty drain (the generator on a pty, Python reader)', `${mb(ig.ptyDrain)} MB/s`, `reprise/this ${ig.ratioPtyDrain.toFixed(3)}`]);
  rows.push(['  checksum (FNV-1a 32 of the bytes in output frames) equal', ig.checksumEqual ? 'yes' : 'NO', `${ig.fnvReceived} vs ${ig.fnvExpected}; ${ig.received} bytes received in ${ig.frames} frames`]);
  rows.push(['  rendered === written at the end', ig.renderedEqualsWritten ? 'yes' : 'NO', `written ${ig.written}, rendered ${ig.rendered}`]);
  rows.push(['  U+FFFD in the buffer', String(ig.fffd), `${ig.linesScanned} lines scanned (scrollback)`]);
  rows.push([
    '  RSS/HWM MiB before → after: serve; daemon',
    '',
    `${m(ig.memBefore.serve)} → ${m(ig.memAfter.serve)}; ${m(ig.memBefore.daemon)} → ${m(ig.memAfter.daemon)}; page JS heap ${ig.memBefore.pageHeapMiB?.toFixed(0)} → ${ig.memAfter.pageHeapMiB?.toFixed(0)} MiB`,
  ]);
}
const ra = results.reattach;
if (ra) {
  rows.push([`reattach ${ra.lines} lines: bytes replayed`, `${(ra.bytes / 1024).toFixed(0)} KiB`, '']);
  rows.push(['reattach: navigation start → painted', `${ra.msToPainted.toFixed(0)} ms`, runsOf(ra.runs, (x) => x.painted.toFixed(0))]);
  rows.push(['reattach: first replay byte → painted', `${ra.msFirstByteToPainted.toFixed(0)} ms`, `target <= 200 ms; ${runsOf(ra.runs, (x) => (x.painted - x.firstByte).toFixed(0))}`]);
}
const id = results.idle;
if (id) {
  rows.push([`idle CPU, ${id.panes} panes, ${id.seconds} s: serve`, `${id.servePct.toFixed(2)} %`, runsOf(id.runs, (x) => x.serve.toFixed(2))]);
  rows.push(['idle CPU: pty daemon', `${id.daemonPct.toFixed(2)} %`, runsOf(id.runs, (x) => x.daemon.toFixed(2))]);
}
const pn = results.panes;
if (pn) {
  const pc = (x) => `${x.toFixed(1)} %`;
  const r1 = pn.stream1.renderer + pn.stream1.gpu, rN = pn.streamN.renderer + pn.streamN.gpu;
  rows.push([`many panes: renderer + GPU CPU, 1 pane printing ${pn.rateKBs} KB/s`, pc(r1), `renderer ${pc(pn.stream1.renderer)}, gpu ${pc(pn.stream1.gpu)}; ${(pn.stream1.rate / 1000).toFixed(0)} KB/s rendered`]);
  rows.push([`  the same with ${pn.panes} panes open (it alone in its tab, the others ${pn.perTab} per tab)`, pc(rN), `${pn.panes} panes / 1 pane ${(rN / r1).toFixed(2)} (target ≈ 1); renderer ${pc(pn.streamN.renderer)}, gpu ${pc(pn.streamN.gpu)}; ${(pn.streamN.rate / 1000).toFixed(0)} KB/s rendered`]);
  rows.push([`  renderer + GPU CPU idle: 1 pane / ${pn.panes} panes`, `${pc(pn.idle1.renderer + pn.idle1.gpu)} / ${pc(pn.idleN.renderer + pn.idleN.gpu)}`, `serve ${pc(pn.idle1.serve)} / ${pc(pn.idleN.serve)}, daemon ${pc(pn.idle1.daemon)} / ${pc(pn.idleN.daemon)}`]);
  rows.push([`  serve + daemon CPU while one prints: 1 pane / ${pn.panes} panes`, `${pc(pn.stream1.serve + pn.stream1.daemon)} / ${pc(pn.streamN.serve + pn.streamN.daemon)}`, '']);
  const [m1, ...ms] = pn.memory;
  const mi = (k) => (k / 1024).toFixed(1);
  for (const m of ms) {
    const per = (k) => ((m[k] - m1[k]) / 1024 / (m.panes - m1.panes)).toFixed(2);
    rows.push([
      `many panes: memory per extra pane, 1 → ${m.panes} panes`,
      `${per('browserPssKiB')} MiB`,
      `browser PSS ${mi(m1.browserPssKiB)} → ${mi(m.browserPssKiB)} MiB (target ≤ 3 MiB per pane, with serve and daemon); JS heap ${per('heapKiB')}, serve RSS ${per('serveRssKiB')}, daemon RSS ${per('daemonRssKiB')} MiB per pane`,
    ]);
  }
}
const w0 = Math.max(...rows.map((r) => r[0].length));
const w1 = Math.max(...rows.map((r) => r[1].length));
results.loadavgAfter = os.loadavg();
const la = (x) => x.map((v) => v.toFixed(1)).join(' ');
console.log(`\nReprise browser benchmarks: headless Chromium, ${RENDERER} renderer, medians of ${RUNS} runs, CPU % of one core`);
console.log(`(${results.cpus} CPUs; load average before ${la(results.loadavgBefore)}, after ${la(results.loadavgAfter)}; ${results.seconds} s)`);
console.log(`${'measure'.padEnd(w0)}  ${'median'.padStart(w1)}  detail`);
console.log(`${'-'.repeat(w0)}  ${'-'.repeat(w1)}  ------`);
for (const r of rows) console.log(`${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2]}`);
const out = artifactPath('bench', 'bench.json');
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`\n(${out})`);
