#!/usr/bin/env node
// Start-up of a page with 4 restored panes (a 2x2 split, SCROLLBACK lines each), in headless
// Chromium (not pass/fail): navigation start → every pane's last line in its buffer and a frame
// painted after it ("screens drawn"), and the main thread's long tasks (> 50 ms) until then.
// With --alt-bin, a second build's page (its own home, the same panes) is reloaded alternately
// with this one, run after run, so that both see the same load: before/after from one run.
//
//   node e2e/bench/start.mjs [--runs N] [--alt-bin PATH]      env: REPRISE_BIN
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import * as lib from '../lib/index.mjs';
const { launchPipeBrowser } = await import('../lib/cdp-pipe.mjs');

const args = process.argv.slice(2);
const opt = (n, d) => {
  const i = args.indexOf(`--${n}`);
  return i < 0 ? d : args[i + 1];
};
const RUNS = parseInt(opt('runs', '5'), 10);
const ALT = opt('alt-bin', '');
const SCROLLBACK = 5000;
const log = (...a) => console.error('start:', ...a);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Before the page's scripts, on a reload flagged in sessionStorage: when are all screens drawn. */
function watchStart(marker) {
  if (!sessionStorage.getItem('benchStart')) return;
  const w = (window.__st = { painted: 0, longTasks: 0, longTaskMs: 0 });
  try {
    new PerformanceObserver((l) => {
      if (w.painted) return;
      for (const e of l.getEntries()) {
        w.longTasks++;
        w.longTaskMs += e.duration;
      }
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // no longtask entries here
  }
  const tick = () => {
    const r = window.__reprise;
    const panes = r ? [...document.querySelectorAll('[data-testid=pane]')].map((e) => e.getAttribute('data-pane-id')) : [];
    // In the buffer and in the DOM renderer's rows (on screen, not only parsed).
    const shown = (id) => (document.querySelector(`[data-pane-id="${id}"] .xterm-rows`)?.textContent || '').includes(marker);
    if (panes.length === 4 && panes.every((id) => (r.paneTail(id, 3) || '').includes(marker) && shown(id))) {
      w.inBuffer = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => (w.painted = performance.now())));
      return;
    }
    setTimeout(tick, 5);
  };
  tick();
}

async function setup(bin, label, browser) {
  const home = lib.makeHome();
  mkdirSync(path.join(home, 'u'));
  const server = await lib.startServe({ home, label, bin, env: { HOME: path.join(home, 'u') } });
  const u = new URL(server.url);
  u.searchParams.set('renderer', 'dom');
  const marker = `line ${SCROLLBACK} of scrollback`;
  const page = await lib.openPage(browser, u.href);
  await page.addInitScript(watchStart, marker);
  const [p] = await lib.paneIds(page);
  const l1 = await lib.rpc(page, 'layout.split', { paneId: p, direction: 'row' });
  const ids = l1.tabs[0].root.children.map((c) => c.id);
  await lib.rpc(page, 'layout.split', { paneId: ids[0], direction: 'column' });
  await lib.rpc(page, 'layout.split', { paneId: ids[1], direction: 'column' });
  await lib.waitReady(page);
  let i = 0;
  for (const q of await lib.paneIds(page)) {
    await lib.waitForPrompt(page, q, { timeoutMs: 30000 });
    await lib.typeInPane(page, q, `seq -f 'pane ${++i} line %g of scrollback' ${SCROLLBACK}\n`);
    await lib.waitForText(page, q, marker, { timeoutMs: 30000 });
  }
  await page.evaluate(() => sessionStorage.setItem('benchStart', '1'));
  return { server, home, page, label, bin, runs: [] };
}

async function once(s) {
  await s.page.reload();
  const r = await lib.waitFor(() => s.page.evaluate(() => (window.__st && window.__st.painted ? window.__st : null)), {
    timeoutMs: 60000, intervalMs: 50, message: 'the 4 screens drawn', retryErrors: true,
  });
  await lib.waitReady(s.page);
  await lib.sleep(1500); // the full replays land; the next run starts from a quiet page
  s.runs.push(r);
  log(`${s.label}: screens drawn ${r.painted.toFixed(0)} ms after navigation start, long tasks ${r.longTasks} (${r.longTaskMs.toFixed(0)} ms)`);
}

const browser = await launchPipeBrowser();
const sets = [];
try {
  const bin = process.env.REPRISE_BIN || path.resolve('../build/bin/reprise');
  // Both are set up before the runs (each page in its own context and renderer).
  sets.push(await setup(bin, 'this', browser));
  if (ALT) sets.push(await setup(ALT, 'alt', browser));
  for (let r = 0; r < RUNS; r++) for (const s of sets) await once(s);
} finally {
  await browser.close().catch(() => {});
  for (const s of sets) await lib.cleanup({ server: s.server, home: s.home, label: s.label });
}
console.log(`\nStart with 4 restored panes (${SCROLLBACK} lines each), headless Chromium, DOM renderer, medians of ${RUNS} (load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')})`);
for (const s of sets) {
  const m = median(s.runs.map((x) => x.painted));
  console.log(`${s.label.padEnd(5)} ${s.bin}: screens drawn ${m.toFixed(0)} ms after navigation start (runs ${s.runs.map((x) => x.painted.toFixed(0)).join(', ')}); long tasks until then ${median(s.runs.map((x) => x.longTaskMs)).toFixed(0)} ms`);
}
if (sets.length === 2) {
  const [a, b] = sets.map((s) => median(s.runs.map((x) => x.painted)));
  console.log(`this / alt: ${(a / b).toFixed(2)}`);
}
