import { describe, expect, it } from 'vitest';
import { ManualTimers } from '../stream/fakeTimers';
import { BLINK_MS, CursorBlinker } from './blink';

function blinker() {
  const timers = new ManualTimers();
  const seen: boolean[] = [];
  const b = new CursorBlinker((off) => seen.push(off), timers);
  return { b, timers, seen };
}

describe('CursorBlinker', () => {
  it('blinks only when enabled and focused', () => {
    const { b, timers, seen } = blinker();
    b.setEnabled(true);
    timers.advance(BLINK_MS * 3);
    expect(seen).toEqual([]);
    b.setFocused(true);
    timers.advance(BLINK_MS);
    expect(b.hidden).toBe(true);
    timers.advance(BLINK_MS);
    expect(b.hidden).toBe(false);
    expect(seen).toEqual([true, false]);
  });

  it('shows the cursor at once when the focus goes or the blink is turned off', () => {
    const { b, timers } = blinker();
    b.setEnabled(true);
    b.setFocused(true);
    timers.advance(BLINK_MS);
    expect(b.hidden).toBe(true);
    b.setFocused(false);
    expect(b.hidden).toBe(false);
    timers.advance(BLINK_MS * 4);
    expect(b.hidden).toBe(false);
    b.setFocused(true);
    timers.advance(BLINK_MS);
    expect(b.hidden).toBe(true);
    b.setEnabled(false);
    expect(b.hidden).toBe(false);
    expect(timers.size).toBe(0);
  });

  it('keeps the cursor solid while keys or output keep coming', () => {
    const { b, timers } = blinker();
    b.setEnabled(true);
    b.setFocused(true);
    for (let i = 0; i < 10; i++) {
      timers.advance(BLINK_MS / 2);
      b.poke();
      expect(b.hidden).toBe(false);
    }
    timers.advance(BLINK_MS);
    expect(b.hidden).toBe(true);
    b.poke();
    expect(b.hidden).toBe(false);
  });

  it('does nothing after dispose', () => {
    const { b, timers } = blinker();
    b.setEnabled(true);
    b.setFocused(true);
    b.dispose();
    b.poke();
    timers.advance(BLINK_MS * 4);
    expect(b.hidden).toBe(false);
    expect(timers.size).toBe(0);
  });
});

