// The socket worker: owns one WebSocket, so receiving the host's messages
// costs the page's main thread nothing, and hands them to the page one batch
// at a time. While the page is busy (xterm.js parsing a flood), what arrives
// waits here and is merged (stream/coalesce.ts); on an idle page a message is
// passed on at once, so an echo is not delayed.

import { SocketPump, type WorkerSideSocket } from './pump';
import type { FromWorker, ToWorker } from './worker-protocol';

const scope = self as unknown as {
  onmessage: ((ev: MessageEvent<ToWorker>) => void) | null;
  postMessage(m: FromWorker, transfer?: Transferable[]): void;
  close(): void;
};

const pump = new SocketPump({
  createSocket: (url) => new WebSocket(url) as unknown as WorkerSideSocket,
  post: (m, transfer) => scope.postMessage(m, transfer),
  exit: () => scope.close(),
});
scope.onmessage = (ev) => pump.fromPage(ev.data);
