// Binary frames: [kind u8][handle u32 big-endian][payload…] (docs/wire.md).

export const KIND_OUTPUT = 1;
export const KIND_INPUT = 2;
export const HEADER_BYTES = 5;

export interface Frame {
  kind: number;
  handle: number;
  payload: Uint8Array;
}

export function encodeFrame(kind: number, handle: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + payload.byteLength);
  const view = new DataView(out.buffer);
  view.setUint8(0, kind);
  view.setUint32(1, handle >>> 0, false);
  out.set(payload, HEADER_BYTES);
  return out;
}

/**
 * Decodes a frame without copying: payload is a view into data. Returns null
 * for a message too short to hold a header.
 */
export function decodeFrame(data: ArrayBuffer | Uint8Array): Frame | null {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.byteLength < HEADER_BYTES) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    kind: view.getUint8(0),
    handle: view.getUint32(1, false),
    payload: bytes.subarray(HEADER_BYTES),
  };
}
