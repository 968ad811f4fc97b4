// Headless Chromium driven over --remote-debugging-pipe, with the part of playwright's API the
// benchmarks use (contexts, pages, evaluate, keyboard, click, reload, init scripts), so
// bench/run.mjs and lib/page.mjs's helpers work with either.
//
// Why not playwright for the benchmarks: it enables the Network domain on every page and worker
// it attaches to, so Chromium serializes every WebSocket frame (base64) into a CDP event for the
// driver, and Network.disable on a second CDP session does not stop it (each session has its own
// domains). At tens of MB/s that costs the browser process and the driver most of a core, which
// on a 2-core machine is taken from the page being measured, and a bare xterm.js page fed from
// memory (the anchor) pays none of it. Here nothing but Page (while loading) and Runtime.evaluate
// is used, so a page's traffic stays in the page.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS } from './page.mjs';
import { sleep } from './wait.mjs';

/** Modifier bits of Input.dispatchKeyEvent. */
const MODS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

/** The key event fields for one key name as playwright's keyboard.press takes it ("Control+C", "Enter", "a"). */
function keyOf(spec) {
  const parts = spec.split('+');
  const name = parts.pop();
  let modifiers = 0;
  for (const m of parts) {
    if (!(m in MODS)) throw new Error(`press: unknown modifier ${m} in ${spec}`);
    modifiers |= MODS[m];
  }
  if (name === 'Enter') return { modifiers, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: modifiers ? undefined : '\r' };
  if (name === 'Escape') return { modifiers, key: 'Escape', code: 'Escape', windowsVirtualKeyCode: 27 };
  if (name.length !== 1) throw new Error(`press: unsupported key ${spec}`);
  const upper = name.toUpperCase();
  const letter = /[A-Z]/.test(upper);
  const shifted = (modifiers & MODS.Shift) !== 0;
  // "a" and "A" type themselves; with modifiers a letter names its key ("Control+C" is c, "Control+Shift+D" is D).
  const key = !letter || !modifiers ? name : shifted ? upper : name.toLowerCase();
  const code = letter ? `Key${upper}` : /[0-9]/.test(name) ? `Digit${name}` : name === '`' ? 'Backquote' : undefined;
  const vk = letter || /[0-9]/.test(name) ? upper.charCodeAt(0) : name === '`' ? 192 : undefined;
  // With Control/Alt/Meta held a key types nothing; the page sees the keydown.
  const text = modifiers & (MODS.Control | MODS.Alt | MODS.Meta) ? undefined : key;
  return { modifiers, key, code, windowsVirtualKeyCode: vk, text, unmodifiedText: text };
}

/** fn called with arg (JSON), as source text. */
const script = (fn, arg) => `(${fn})(${arg === undefined ? '' : JSON.stringify(arg)})`;

/** Launches headless Chromium; resolves to a browser with newContext() and close(). */
export async function launchPipeBrowser(extraArgs = []) {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'rcdp.'));
  const proc = spawn(
    CHROMIUM,
    ['--headless', '--remote-debugging-pipe', `--user-data-dir=${profile}`, ...CHROMIUM_ARGS, ...extraArgs, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  proc.stderr.resume();
  const toBrowser = proc.stdio[3];
  const fromBrowser = proc.stdio[4];
  let nextId = 0;
  const pending = new Map();
  const listeners = new Set();
  let buf = Buffer.alloc(0);
  fromBrowser.on('data', (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (let i = buf.indexOf(0); i >= 0; i = buf.indexOf(0)) {
      const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
      buf = buf.subarray(i + 1);
      if (msg.id !== undefined && pending.has(msg.id)) {
        const { resolve, reject, method } = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      } else for (const l of listeners) l(msg);
    }
  });
  const exited = new Promise((r) => proc.on('exit', r));
  exited.then(() => {
    for (const { reject, method } of pending.values()) reject(new Error(`${method}: the browser exited`));
    pending.clear();
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      if (proc.exitCode !== null) return reject(new Error(`${method}: the browser exited`));
      const id = ++nextId;
      pending.set(id, { resolve, reject, method });
      toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });
  const once = (sessionId, method) =>
    new Promise((r) => {
      const l = (m) => {
        if (m.sessionId === sessionId && m.method === method) {
          listeners.delete(l);
          r(m.params);
        }
      };
      listeners.add(l);
    });
  await send('Browser.getVersion');

  const browser = {
    /** The browser process (its renderers are its descendants). */
    pid: proc.pid,
    async newContext({ viewport = { width: 1280, height: 720 } } = {}) {
      const { browserContextId } = await send('Target.createBrowserContext');
      const initScripts = [];
      const ctx = {
        browser: () => browser,
        addInitScript: async (fn, arg) => void initScripts.push(script(fn, arg)),
        newCDPSession: async () => ({ send: async () => ({}) }), // nothing to quiet here
        close: () => send('Target.disposeBrowserContext', { browserContextId }).catch(() => {}),
        async newPage() {
          const { targetId } = await send('Target.createTarget', { url: 'about:blank', browserContextId });
          const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
          const call = (method, params) => send(method, params, sessionId);
          await call('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false });
          for (const source of initScripts) await call('Page.addScriptToEvaluateOnNewDocument', { source });
          return pipePage(ctx, call, (m) => once(sessionId, m), viewport);
        },
      };
      return ctx;
    },
    async close() {
      try {
        await Promise.race([send('Browser.close'), exited]);
      } catch {
        // exiting anyway
      }
      if (proc.exitCode === null) proc.kill('SIGKILL');
      await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
  return browser;
}

function pipePage(ctx, call, once, viewport) {
  const load = async (fn) => {
    await call('Page.enable');
    const loaded = once('Page.loadEventFired');
    await fn();
    await loaded;
    await call('Page.disable');
  };
  const page = {
    errors: [],
    on() {}, // console and page errors are not collected here
    context: () => ctx,
    /** A raw CDP call in this page's session (e.g. HeapProfiler.collectGarbage). */
    cdp: call,
    /** Resolves with the params of this page's next CDP event of that method (e.g. Tracing.tracingComplete). */
    cdpEvent: once,
    viewportSize: () => ({ ...viewport }),
    goto: (url) => load(() => call('Page.navigate', { url })),
    reload: () => load(() => call('Page.reload')),
    addInitScript: (fn, arg) => call('Page.addScriptToEvaluateOnNewDocument', { source: script(fn, arg) }),
    /** fn(arg) in the page, awaited; its value comes back as JSON. */
    async evaluate(fn, arg) {
      const r = await call('Runtime.evaluate', {
        expression: script(fn, arg),
        awaitPromise: true,
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
      return r.result.value;
    },
    async waitForFunction(fn, arg, { timeout = 30000 } = {}) {
      const end = Date.now() + timeout;
      for (;;) {
        if (await page.evaluate(fn, arg)) return;
        if (Date.now() > end) throw new Error(`waitForFunction: ${fn} not true after ${timeout} ms`);
        await sleep(20);
      }
    },
    keyboard: {
      async press(spec) {
        const k = keyOf(spec);
        await call('Input.dispatchKeyEvent', { type: k.text ? 'keyDown' : 'rawKeyDown', ...k });
        await call('Input.dispatchKeyEvent', { type: 'keyUp', ...k, text: undefined, unmodifiedText: undefined });
      },
      async type(text) {
        for (const ch of text) await page.keyboard.press(ch === '\n' ? 'Enter' : ch);
      },
    },
    /** Clicks the middle of the first element matching selector (it must be there). */
    async click(selector) {
      const at = await page.evaluate((sel) => {
        const e = document.querySelector(sel);
        if (!e) return null;
        const r = e.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      }, selector);
      if (!at) throw new Error(`click: no element ${selector}`);
      await call('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, button: 'left', clickCount: 1 });
      await call('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, button: 'left', clickCount: 1 });
    },
    locator: (selector) => ({
      async waitFor({ timeout = 30000 } = {}) {
        await page.waitForFunction((sel) => {
          const e = document.querySelector(sel);
          return !!e && e.getClientRects().length > 0;
        }, selector, { timeout });
      },
      click: () => page.click(selector),
    }),
  };
  return page;
}
