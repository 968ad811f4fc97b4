// The page's one connection to the host. The terminal view and the components
// never see this: they go through the Backend facade (src/backend.ts).

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface Transport {
  /** Starts connecting (and reconnecting after every close); resolves on the first open. */
  connect(): Promise<void>;
  /** Sends a request and resolves with its result, or rejects with the host's error line. */
  request<T = unknown>(method: string, params: unknown): Promise<T>;
  /** Sends a notification (no response). Dropped while not connected. */
  notify(method: string, params: unknown): void;
  /** Host events: {"event": name, "data": …}. Returns an unsubscribe function. */
  onEvent(cb: (event: string, data: unknown) => void): () => void;
  /** Sends one binary message. Dropped while not connected. */
  sendBinary(data: Uint8Array): void;
  /** Binary messages from the host. */
  onBinary(cb: (data: Uint8Array) => void): () => void;
  /** Connection state changes; 'open' fires again after each reconnect. */
  onState(cb: (state: ConnectionState) => void): () => void;
  readonly state: ConnectionState;
  /** Closes for good. */
  close(): void;
}

/** Where to connect: a ws:// URL and the token to put in its query. */
export interface Endpoint {
  url: string;
  token: string;
}

/** A tiny listener set. */
export class Emitter<A extends unknown[]> {
  private listeners = new Set<(...args: A) => void>();

  on(cb: (...args: A) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  emit(...args: A): void {
    for (const cb of [...this.listeners]) {
      try {
        cb(...args);
      } catch (err) {
        console.error('reprise: listener failed', err);
      }
    }
  }
}
