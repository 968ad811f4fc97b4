import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, KIND_INPUT } from './frame';
import { encodeBinary, InputBatcher } from './input';

function setup(maxFrame?: number) {
  const frames: Uint8Array[] = [];
  const tasks: (() => void)[] = [];
  const batcher = new InputBatcher({
    send: (p) => frames.push(encodeFrame(KIND_INPUT, 9, p)),
    schedule: (fn) => tasks.push(fn),
    maxFrame,
  });
  const runTasks = () => {
    while (tasks.length) tasks.shift()!();
  };
  const payloadText = () =>
    new TextDecoder().decode(
      concat(frames.map((f) => decodeFrame(f)!.payload)),
    );
  return { frames, tasks, batcher, runTasks, payloadText };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

describe('InputBatcher', () => {
  it('sends a burst of 200 keystrokes as one frame, in order', () => {
    const { frames, batcher, runTasks, payloadText, tasks } = setup();
    let typed = '';
    for (let i = 0; i < 200; i++) {
      const ch = String.fromCharCode(33 + (i % 90));
      typed += ch;
      batcher.pushData(ch);
    }
    expect(tasks.length).toBe(1);
    expect(frames.length).toBe(0);
    runTasks();
    expect(frames.length).toBe(1);
    expect(decodeFrame(frames[0]!)!.handle).toBe(9);
    expect(payloadText()).toBe(typed);
  });

  it('keeps order across batches and multi-byte characters', () => {
    const { frames, batcher, runTasks, payloadText } = setup();
    batcher.pushData('a');
    batcher.pushData('é');
    runTasks();
    batcher.pushData('€');
    batcher.pushData('😀\r');
    runTasks();
    expect(frames.length).toBe(2);
    expect(payloadText()).toBe('aé€😀\r');
  });

  it('splits a large paste into frames no larger than maxFrame, in order', () => {
    const { frames, batcher, runTasks, payloadText } = setup(64);
    const text = 'x'.repeat(100) + 'ü'.repeat(50) + 'end';
    batcher.pushData(text);
    runTasks();
    expect(frames.length).toBe(Math.ceil(new TextEncoder().encode(text).byteLength / 64));
    for (const f of frames) expect(decodeFrame(f)!.payload.byteLength).toBeLessThanOrEqual(64);
    expect(payloadText()).toBe(text);
  });

  it('encodes onBinary strings one byte per code unit', () => {
    expect(Array.from(encodeBinary('\x1b[M\xff\x80'))).toEqual([0x1b, 0x5b, 0x4d, 0xff, 0x80]);
    const { frames, batcher, runTasks } = setup();
    batcher.pushData('a');
    batcher.pushBinary('\xfe');
    batcher.pushData('b');
    runTasks();
    expect(Array.from(decodeFrame(frames[0]!)!.payload)).toEqual([0x61, 0xfe, 0x62]);
  });

  it('uses queueMicrotask by default', async () => {
    const sent: Uint8Array[] = [];
    const b = new InputBatcher({ send: (p) => sent.push(p) });
    for (const ch of 'hello') b.pushData(ch);
    expect(sent.length).toBe(0);
    await Promise.resolve();
    expect(sent.length).toBe(1);
    expect(new TextDecoder().decode(sent[0])).toBe('hello');
  });

  it('clear drops unsent input', () => {
    const { frames, batcher, runTasks } = setup();
    batcher.pushData('abc');
    batcher.clear();
    runTasks();
    expect(frames.length).toBe(0);
  });
});
