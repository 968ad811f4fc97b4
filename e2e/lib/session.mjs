// One test's world: a `reprise serve` in a fresh home, a headless Chromium and a page on it.
// withReprise runs the body, saves a screenshot when it fails, and always cleans up (serve
// stopped, daemon killed, home removed, logs kept in $ARTIFACTS/e2e-logs/<label>/).

import path from 'node:path';
import { startServe, cleanup, makeHome } from './serve.mjs';
import { launchBrowser, openPage, shot } from './page.mjs';

/**
 * opts.env: more environment for serve (and so for its daemon and shells); opts.pinToken: serve
 * keeps one token across restarts (ctx.tokenFile, `--token-file`), so an open page reconnects.
 */
export async function withReprise(label, body, opts = {}) {
  const home = makeHome();
  const deferred = [];
  const tokenFile = opts.pinToken ? path.join(home, 'pinned-web-token') : undefined;
  const ctx = { label, home, tokenFile, server: null, browser: null, page: null };
  /** Runs fn at cleanup, before serve is stopped (e.g. to kill a process the test started). */
  ctx.defer = (fn) => deferred.push(fn);
  try {
    ctx.server = await startServe({ home, label, env: opts.env, tokenFile });
    ctx.browser = await launchBrowser();
    ctx.page = await openPage(ctx.browser, ctx.server.url);
    /** Opens another page on the current server (the old one stays open unless closed). */
    ctx.newPage = async (url = ctx.server.url) => (ctx.page = await openPage(ctx.browser, url));
    /** Stops serve and starts it again on the same home (the daemon keeps running). */
    ctx.restartServe = async () => {
      await ctx.server.stop();
      ctx.server = await startServe({ home, label: `${label}.2`, env: opts.env, tokenFile });
      return ctx.server;
    };
    await body(ctx);
  } catch (e) {
    if (ctx.page && !ctx.page.isClosed()) {
      await shot(ctx.page, `${label}-FAILED`).catch(() => {});
      const focus = await ctx.page
        .evaluate(() => {
          const a = document.activeElement;
          const what = a ? `${a.tagName}.${a.className} ${(a.outerHTML || '').slice(0, 200)}` : 'none';
          // What the panes said about their input (held, refused, cut) and each view's counters:
          // a line that never reached its shell shows up here.
          const notes = [...document.querySelectorAll('[data-testid=pane-input]')].map(
            (e) => `${e.closest('[data-pane-id]')?.getAttribute('data-pane-id')}: ${e.textContent}`,
          );
          let stats = '';
          try {
            stats = JSON.stringify(window.__reprise?.stats());
          } catch (err) {
            stats = `? ${err}`;
          }
          return `${what}\nfocus changes (last 10): ${(window.__focusLog || []).slice(-10).join(' | ')}\npane input notices: ${notes.join(' | ') || 'none'}\nviews: ${stats}`;
        })
        .catch((err) => `? ${err.message}`);
      console.error(`[${label}] focused element at failure: ${focus}`);
    }
    if (ctx.page?.errors?.length) console.error(`[${label}] page errors:\n${ctx.page.errors.join('\n')}`);
    throw e;
  } finally {
    for (const fn of deferred.reverse()) await Promise.resolve().then(fn).catch((e) => console.error(`[${label}] cleanup:`, e));
    await ctx.browser?.close().catch(() => {});
    await cleanup({ server: ctx.server, home, label });
  }
}
