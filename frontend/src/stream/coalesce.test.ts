import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalesce';
import { decodeFrame, encodeFrame, KIND_INPUT, KIND_OUTPUT } from './frame';

const enc = new TextEncoder();
const dec = new TextDecoder();
const out = (handle: number, s: string): ArrayBuffer => encodeFrame(KIND_OUTPUT, handle, enc.encode(s)).buffer as ArrayBuffer;
const show = (m: string | ArrayBuffer): string => {
  if (typeof m === 'string') return `text:${m}`;
  const f = decodeFrame(m);
  return f ? `${f.kind}/${f.handle}:${dec.decode(f.payload)}` : 'short';
};

describe('Coalescer', () => {
  it('merges consecutive output of one handle and keeps everything in order', () => {
    const c = new Coalescer();
    c.push(out(1, 'ab'));
    c.push(out(1, 'cd'));
    c.push('{"event":"x"}');
    c.push(out(1, 'ef'));
    c.push(out(2, 'gh'));
    c.push(out(2, 'ij'));
    c.push(out(1, 'kl'));
    expect(c.take().map(show)).toEqual(['1/1:abcd', 'text:{"event":"x"}']);
    expect(c.take().map(show)).toEqual(['1/1:ef', '1/2:ghij', '1/1:kl']);
    expect(c.empty).toBe(true);
    expect(c.take()).toEqual([]);
  });

  it('gives every text message a batch of its own end', () => {
    const c = new Coalescer();
    c.push('{"event":"outcome","data":"resuming"}');
    c.push('{"event":"outcome","data":"resumed"}');
    c.push(out(1, 'a'));
    expect(c.take()).toEqual(['{"event":"outcome","data":"resuming"}']);
    expect(c.take()).toEqual(['{"event":"outcome","data":"resumed"}']);
    expect(c.take().map(show)).toEqual(['1/1:a']);
  });

  it('starts a new frame at the size cap, never splitting a message', () => {
    const c = new Coalescer(5);
    c.push(out(7, 'abc'));
    c.push(out(7, 'de'));
    c.push(out(7, 'f'));
    c.push(out(7, 'ghijklm')); // larger than the cap: passed on whole
    expect(c.take().map(show)).toEqual(['1/7:abcde', '1/7:f', '1/7:ghijklm']);
  });

  it('passes other frames and runts on as they are', () => {
    const c = new Coalescer();
    const inp = encodeFrame(KIND_INPUT, 1, enc.encode('x')).buffer as ArrayBuffer;
    const runt = new Uint8Array([1, 0, 0]).buffer;
    c.push(out(1, 'a'));
    c.push(inp);
    c.push(runt);
    c.push(out(1, 'b'));
    const got = c.take();
    expect(got.map(show)).toEqual(['1/1:a', '2/1:x', 'short', '1/1:b']);
    expect(got[1]).toBe(inp);
    expect(got[2]).toBe(runt);
  });

  it('hands a lone frame on without copying it', () => {
    const c = new Coalescer();
    const f = out(3, 'solo');
    c.push(f);
    expect(c.take()[0]).toBe(f);
  });

  it('keeps bytes exact across a merge, UTF-8 split between frames included', () => {
    const c = new Coalescer();
    const all = enc.encode('naïve 日本語 🙂 done');
    // Split inside multi-byte characters.
    const cuts = [0, 3, 8, 11, 17, all.length];
    for (let i = 0; i + 1 < cuts.length; i++) c.push(encodeFrame(KIND_OUTPUT, 9, all.subarray(cuts[i], cuts[i + 1])).buffer as ArrayBuffer);
    const [m] = c.take();
    const f = decodeFrame(m as ArrayBuffer);
    expect(f?.handle).toBe(9);
    expect([...(f?.payload ?? [])]).toEqual([...all]);
  });
});
