// Which socket the transport opens: ?socket=main|worker or localStorage
// "reprise.socket" chooses; by default the WebSocket lives on the page's main
// thread in Chromium and in a worker (workersocket.ts) elsewhere (the desktop
// window's WebKitGTK, Firefox). A browser that cannot start the worker keeps
// it on the main thread.
//
// Measured per engine since the page feeds xterm.js through the feeder
// (stream/feeder.ts), 2 cores, 2026-12-02 (docs/performance.md): in headless
// Chromium, four pairs, the main thread gave the echo next to `yes` 10.9–12.4
// ms against 15.2–16.1 in the worker and Ctrl+C under `yes` 29.5–35.7 ms
// against 41.0–43.0, `cat` no slower; in the WebKitGTK window `cat` of 8 MiB
// ran 0.70–0.91 of bare xterm.js with the worker against 0.37–0.62 on the
// main thread (three runs each).

// A file of its own with a fixed name (vite.config.ts), so that public/early-keys.js can start it
// before this bundle runs; every response carries no-store, so no other version's is cached.
import SocketWorker from './socket.worker?worker';
import type { SocketLike } from './websocket';
import { WorkerSocket, type WorkerLike } from './workersocket';

export type SocketMode = 'worker' | 'main';

/** The default for a browser whose user agent is ua. */
export function defaultSocketMode(ua: string): SocketMode {
  return /Chrom(e|ium)\//.test(ua) ? 'main' : 'worker';
}

export function socketMode(): SocketMode {
  const dflt = defaultSocketMode(typeof navigator === 'undefined' ? '' : navigator.userAgent);
  try {
    const pref = new URLSearchParams(location.search).get('socket') ?? localStorage.getItem('reprise.socket');
    return pref === 'main' || pref === 'worker' ? pref : dflt;
  } catch {
    return dflt;
  }
}

/** The worker public/early-keys.js started before the bundle ran, once; null if none. */
function takeEarlyWorker(): WorkerLike | null {
  const g = globalThis as { __repriseSocketWorker?: WorkerLike };
  const w = g.__repriseSocketWorker ?? null;
  delete g.__repriseSocketWorker;
  return w;
}

export function createSocket(url: string, mode: SocketMode = socketMode()): SocketLike {
  const early = takeEarlyWorker();
  if (mode !== 'worker') early?.terminate();
  if (mode === 'worker' && typeof Worker !== 'undefined') {
    try {
      return new WorkerSocket(url, early ?? (new SocketWorker() as unknown as WorkerLike));
    } catch (err) {
      early?.terminate();
      console.info('reprise: socket worker unavailable, using the main thread', err);
    }
  }
  return new WebSocket(url) as unknown as SocketLike;
}
