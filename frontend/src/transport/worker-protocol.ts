// Messages between the page and the socket worker (socket.worker.ts).

import type { Message } from '../stream/coalesce';

/** Page → worker. */
export type ToWorker =
  | { t: 'open'; url: string }
  | { t: 'send'; data: string | ArrayBuffer | Uint8Array }
  | { t: 'close' }
  /** The page has handled the last batch: send the next one. */
  | { t: 'next' };

/** Worker → page. */
export type FromWorker =
  | { t: 'open' }
  | { t: 'error' }
  | { t: 'close' }
  /** Messages from the host, in order; binary ones are transferred. */
  | { t: 'batch'; items: Message[] };
