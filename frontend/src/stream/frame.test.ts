import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, KIND_INPUT, KIND_OUTPUT } from './frame';

describe('frame codec', () => {
  it('round-trips kind, handle and payload', () => {
    const payload = new Uint8Array([0, 1, 2, 250, 255]);
    for (const handle of [0, 1, 0x1234, 0xfffffffe, 0xffffffff]) {
      const enc = encodeFrame(KIND_INPUT, handle, payload);
      expect(enc.byteLength).toBe(5 + payload.byteLength);
      const dec = decodeFrame(enc.buffer as ArrayBuffer);
      expect(dec).not.toBeNull();
      expect(dec!.kind).toBe(KIND_INPUT);
      expect(dec!.handle).toBe(handle);
      expect(Array.from(dec!.payload)).toEqual(Array.from(payload));
    }
  });

  it('writes the handle big-endian', () => {
    const enc = encodeFrame(KIND_OUTPUT, 0x01020304, new Uint8Array());
    expect(Array.from(enc)).toEqual([1, 1, 2, 3, 4]);
  });

  it('decodes from a view with an offset', () => {
    const backing = new Uint8Array([9, 9, 1, 0, 0, 0, 7, 65, 66]);
    const dec = decodeFrame(backing.subarray(2));
    expect(dec).toEqual({ kind: 1, handle: 7, payload: new Uint8Array([65, 66]) });
  });

  it('rejects frames shorter than the header', () => {
    expect(decodeFrame(new Uint8Array([1, 0, 0, 0]))).toBeNull();
    expect(decodeFrame(new ArrayBuffer(0))).toBeNull();
  });

  it('passes a UTF-8 character split across frames through as bytes', () => {
    // "é€😀" in UTF-8, cut in the middle of the euro sign and of the emoji.
    const text = 'é€😀';
    const utf8 = new TextEncoder().encode(text);
    const cuts = [3, 7];
    const parts = [utf8.subarray(0, cuts[0]), utf8.subarray(cuts[0], cuts[1]), utf8.subarray(cuts[1])];
    const frames = parts.map((p) => encodeFrame(KIND_OUTPUT, 3, p));
    const payloads = frames.map((f) => decodeFrame(f)!.payload);

    // Each payload is exactly the bytes that went in, and none decodes alone.
    payloads.forEach((p, i) => expect(Array.from(p)).toEqual(Array.from(parts[i]!)));
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(payloads[0]!)).toThrow();

    // Concatenated in order they are the original text: the terminal's
    // streaming decoder (xterm.write(Uint8Array)) sees the same bytes.
    const joined = new Uint8Array(utf8.byteLength);
    let off = 0;
    for (const p of payloads) {
      joined.set(p, off);
      off += p.byteLength;
    }
    expect(new TextDecoder().decode(joined)).toBe(text);
  });
});
