import { describe, expect, it } from 'vitest';
import { ManualTimers } from './fakeTimers';
import { ACK_BYTES, ACK_IDLE_MS, FlowControl } from './flow';

function setup() {
  const timers = new ManualTimers();
  const acks: number[] = [];
  const flow = new FlowControl({ sendAck: (n) => acks.push(n), timers });
  return { timers, acks, flow };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('FlowControl', () => {
  it('does not ack before the threshold until idle', () => {
    const { timers, acks, flow } = setup();
    flow.onWrite(10);
    flow.onRendered(10);
    expect(acks).toEqual([]);
    timers.advance(ACK_IDLE_MS - 1);
    expect(acks).toEqual([]);
    timers.advance(1);
    expect(acks).toEqual([10]);
    expect(timers.size).toBe(0);
  });

  it('restarts the idle timer on each render callback', () => {
    const { timers, acks, flow } = setup();
    for (let i = 0; i < 5; i++) {
      flow.onRendered(100);
      timers.advance(ACK_IDLE_MS - 10);
    }
    expect(acks).toEqual([]);
    timers.advance(10);
    expect(acks).toEqual([500]);
  });

  it('acks as soon as the threshold is rendered', () => {
    const { acks, flow } = setup();
    flow.onRendered(ACK_BYTES - 1);
    expect(acks).toEqual([]);
    flow.onRendered(1);
    expect(acks).toEqual([ACK_BYTES]);
    expect(flow.pending).toBe(0);
  });

  it('counts bytes exactly: acks sum to bytes rendered, which equal bytes written', () => {
    const { timers, acks, flow } = setup();
    // Chunk sizes like a pty stream: odd sizes, some big, some tiny.
    const sizes: number[] = [];
    let seed = 42;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      sizes.push(1 + (seed % 9000));
    }
    const callbacks: (() => void)[] = [];
    for (const n of sizes) {
      flow.onWrite(n);
      callbacks.push(() => flow.onRendered(n));
    }
    // xterm calls back later, in order; some idle gaps in between.
    callbacks.forEach((cb, i) => {
      cb();
      if (i % 500 === 0) timers.advance(ACK_IDLE_MS * 2);
    });
    timers.advance(ACK_IDLE_MS);
    const total = sum(sizes);
    expect(flow.written).toBe(total);
    expect(flow.rendered).toBe(total);
    expect(sum(acks)).toBe(total);
    expect(flow.acked).toBe(total);
    // No ack is smaller than needed while streaming: all but idle flushes are ≥ threshold.
    expect(acks.filter((a) => a >= ACK_BYTES).length).toBeGreaterThan(total / ACK_BYTES / 2 - 1);
    // Never more than the threshold plus one chunk is rendered-but-unacked.
    expect(Math.max(...acks)).toBeLessThan(ACK_BYTES + 9000);
  });

  it('flush sends nothing when nothing is pending', () => {
    const { acks, flow } = setup();
    flow.flush();
    expect(acks).toEqual([]);
  });

  it('stops acknowledging once disposed', () => {
    const { timers, acks, flow } = setup();
    flow.onRendered(10);
    flow.dispose();
    timers.advance(ACK_IDLE_MS * 2);
    flow.onRendered(ACK_BYTES * 2);
    flow.flush();
    expect(acks).toEqual([]);
    expect(timers.size).toBe(0);
  });
});
