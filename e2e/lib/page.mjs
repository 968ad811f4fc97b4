// Headless Debian Chromium through playwright-core, and what a test does with a Reprise page:
// find panes, type into one, read its text (window.__reprise.paneText), wait for text,
// take screenshots.

import { chromium } from 'playwright-core';
import { artifactPath } from './serve.mjs';
import { waitFor, codeword } from './wait.mjs';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function launchBrowser(extraArgs = []) {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/**
 * Opens url in a new page (its own context) and waits until the page is connected and every
 * pane of the layout is attached. Console errors and page errors are collected in page.errors.
 * initScript: a function run in the page before its own scripts (on every load).
 */
export async function openPage(browser, url, { viewport = { width: 1280, height: 760 }, timeoutMs = 20000, initScript } = {}) {
  const context = await browser.newContext({ viewport });
  // For failure reports: where the keyboard focus went, and when.
  await context.addInitScript(() => {
    const log = (window.__focusLog = []);
    const d = (e) => (e ? `${e.tagName}${e.className ? '.' + String(e.className).split(' ')[0] : ''}` : 'null');
    window.addEventListener(
      'focusout',
      (ev) => {
        log.push(`${Math.round(performance.now())}ms ${d(ev.target)} -> ${d(ev.relatedTarget)}${ev.target.isConnected ? '' : ' (removed)'}`);
        if (log.length > 50) log.shift();
      },
      true,
    );
  });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(m.text());
  });
  await page.goto(url);
  await waitReady(page, { timeoutMs });
  return page;
}

/** Waits until the page is connected and every pane in the layout has a live attachment. */
export async function waitReady(page, { timeoutMs = 20000 } = {}) {
  await waitFor(
    () =>
      page.evaluate(() => {
        const r = window.__reprise;
        if (!r || r.connection() !== 'open') return false;
        const layout = r.layout();
        if (!layout) return false;
        const attached = new Set(Object.values(r.stats()).map((s) => s.paneId));
        const panes = [...document.querySelectorAll('[data-testid=pane]')].map((e) => e.getAttribute('data-pane-id'));
        return panes.length > 0 && panes.length === countPanes(layout) && panes.every((p) => attached.has(p));
        function countPanes(l) {
          const n = (node) => (node.type === 'pane' ? 1 : node.children.reduce((a, c) => a + n(c), 0));
          return l.tabs.reduce((a, t) => a + n(t.root), 0);
        }
      }),
    { timeoutMs, message: async () => `page ready (connection ${await connection(page)})`, retryErrors: true },
  );
}

export const connection = (page) => page.evaluate(() => window.__reprise?.connection()).catch((e) => `? ${e.message}`);
export const layout = (page) => page.evaluate(() => window.__reprise.layout());
export const stats = (page) => page.evaluate(() => window.__reprise.stats());
export const terminals = (page) => page.evaluate(() => window.__reprise.terminals());
export const paneText = (page, paneId) => page.evaluate((id) => window.__reprise.paneText(id), paneId);

/** Pane ids in document order; visibleOnly: only those of the active tab. */
export function paneIds(page, { visibleOnly = false } = {}) {
  return page.evaluate(
    (vis) =>
      [...document.querySelectorAll('[data-testid=pane]')]
        .filter((e) => !vis || e.getClientRects().length > 0)
        .map((e) => e.getAttribute('data-pane-id')),
    visibleOnly,
  );
}

export const paneSel = (paneId) => `[data-testid=pane][data-pane-id="${paneId}"]`;

/** Pane ids of a layout tree, in order. */
export function treePanes(node) {
  return node.type === 'pane' ? [node.id] : node.children.flatMap(treePanes);
}

/** The layout's shape without ids: tabs → nested {dir, children} / 'pane'. */
export function layoutShape(l) {
  const shape = (n) => (n.type === 'pane' ? 'pane' : { direction: n.direction, children: n.children.map(shape) });
  return { tabs: l.tabs.map((t) => shape(t.root)), active: l.tabs.findIndex((t) => t.id === l.activeTabId) };
}

/**
 * Gives paneId the keyboard: clicks into its terminal and waits until the host's layout says it
 * is focused and its xterm textarea has the focus.
 */
export async function focusPane(page, paneId, { timeoutMs = 10000 } = {}) {
  await page.click(`${paneSel(paneId)} .xterm-screen`);
  await waitFor(
    () =>
      page.evaluate((id) => {
        const l = window.__reprise.layout();
        const tab = l.tabs.find((t) => t.id === l.activeTabId);
        const pane = document.querySelector(`[data-testid=pane][data-pane-id="${id}"]`);
        return tab?.focusedPaneId === id && !!pane && pane.contains(document.activeElement) && document.activeElement.tagName === 'TEXTAREA';
      }, paneId),
    { timeoutMs, message: `focus on pane ${paneId}` },
  );
}

/** Types text into paneId with real key events (page.keyboard.type, no delay). "\n" presses Enter. */
export async function typeInPane(page, paneId, text) {
  await focusPane(page, paneId);
  await page.keyboard.type(text);
}

/**
 * Waits until the pane's text satisfies match: a string (contained), a RegExp (returns the
 * match), or a function of the text. joinWrapped: match against the text with line breaks
 * removed (for output longer than a row).
 */
export async function waitForText(page, paneId, match, { timeoutMs = 15000, joinWrapped = false } = {}) {
  let last = '';
  return waitFor(
    async () => {
      let t = (await paneText(page, paneId)) ?? '';
      if (joinWrapped) t = t.replace(/\n/g, '');
      last = t;
      if (typeof match === 'string') return t.includes(match) ? t : null;
      if (match instanceof RegExp) return t.match(match);
      return match(t);
    },
    { timeoutMs, message: () => `${match} in pane ${paneId}; its text ends with:\n${last.split('\n').slice(-15).join('\n')}` },
  );
}

/** Waits until the shell in paneId shows a prompt (some output and an idle line). */
export async function waitForPrompt(page, paneId, opts) {
  return waitForText(page, paneId, (t) => /[$#%>]\s*$/.test(t), opts);
}

/** Runs a command in paneId and waits for its output line `marker`; returns the pane text. */
export async function run(page, paneId, cmd, opts) {
  const marker = codeword('done');
  await typeInPane(page, paneId, `${cmd}; echo ${marker.slice(0, 4)}''${marker.slice(4)}\n`);
  const re = new RegExp(`^${marker}$`, 'm');
  await waitForText(page, paneId, re, opts);
  return paneText(page, paneId);
}

/** Asks the shell in paneId for its PID (echo $$) and returns it. */
export async function shellPid(page, paneId, opts) {
  const tag = codeword('pid');
  await typeInPane(page, paneId, `echo "PID-$$-${tag}"\n`);
  const m = await waitForText(page, paneId, new RegExp(`PID-(\\d+)-${tag}`), opts);
  return parseInt(m[1], 10);
}

/** Saves a full-page screenshot as $ARTIFACTS/e2e/<name>.png. */
export async function shot(page, name) {
  const p = artifactPath('e2e', `${name}.png`);
  await page.screenshot({ path: p });
  return p;
}

/** One request on the page's own protocol (docs/wire.md) over a second WebSocket of the page. */
export function rpc(page, method, params) {
  return page.evaluate(
    ([method, params]) =>
      new Promise((resolve, reject) => {
        // The page keeps its token for the tab (frontend/src/transport/endpoint.ts).
        const token = sessionStorage.getItem('reprise.token') ?? '';
        const ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
        const timer = setTimeout(() => {
          ws.close();
          reject(new Error(`${method}: no answer`));
        }, 20000);
        ws.onopen = () => ws.send(JSON.stringify({ id: 1, method, params }));
        ws.onmessage = (ev) => {
          if (typeof ev.data !== 'string') return;
          const m = JSON.parse(ev.data);
          if (m.id !== 1) return;
          clearTimeout(timer);
          ws.close();
          if (m.error) reject(new Error(`${method}: ${m.error}`));
          else resolve(m.result);
        };
        ws.onerror = () => {
          clearTimeout(timer);
          reject(new Error(`${method}: socket error`));
        };
      }),
    [method, params],
  );
}
