// Which socket the transport opens: by default the WebSocket lives in a
// worker (workersocket.ts); ?socket=main or localStorage "reprise.socket" =
// "main" keeps it on the page's main thread, as does a browser that cannot
// start the worker.

import SocketWorker from './socket.worker?worker&inline';
import type { SocketLike } from './websocket';
import { WorkerSocket, type WorkerLike } from './workersocket';

export type SocketMode = 'worker' | 'main';

export function socketMode(): SocketMode {
  try {
    const pref = new URLSearchParams(location.search).get('socket') ?? localStorage.getItem('reprise.socket');
    return pref === 'main' ? 'main' : 'worker';
  } catch {
    return 'worker';
  }
}

export function createSocket(url: string, mode: SocketMode = socketMode()): SocketLike {
  if (mode === 'worker' && typeof Worker !== 'undefined') {
    try {
      return new WorkerSocket(url, new SocketWorker() as unknown as WorkerLike);
    } catch (err) {
      console.info('reprise: socket worker unavailable, using the main thread', err);
    }
  }
  return new WebSocket(url) as unknown as SocketLike;
}
