import { describe, expect, it } from 'vitest';
import { InputGate, LOST_WINDOW_MS } from './gate';
import { HOLD_LIMIT, InputHold } from './hold';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (chunks: Uint8Array[]) => chunks.map((c) => new TextDecoder().decode(c)).join('');

describe('InputHold', () => {
  it('holds in order and hands everything over once', () => {
    const h = new InputHold();
    expect(h.push(enc('echo '))).toBe(true);
    expect(h.push(enc('ok>notes.txt'))).toBe(true);
    expect(h.push(enc('\r'))).toBe(true);
    expect(h.state).toEqual({ held: 18, refused: 0 });
    expect(dec(h.take())).toBe('echo ok>notes.txt\r');
    expect(h.empty).toBe(true);
    expect(h.take()).toEqual([]);
  });

  it('keeps its own copy of what was pushed', () => {
    const h = new InputHold();
    const b = enc('abc');
    h.push(b);
    b[0] = 0x7a;
    expect(dec(h.take())).toBe('abc');
  });

  it('is bounded at 64 KiB by default', () => {
    const h = new InputHold();
    expect(h.push(new Uint8Array(HOLD_LIMIT).fill(0x61))).toBe(true);
    expect(h.push(enc('b'))).toBe(false);
    expect(HOLD_LIMIT).toBe(64 * 1024);
  });

  it('past the bound refuses the partial line too, so no prefix of a command is sent', () => {
    const h = new InputHold(20);
    h.push(enc('echo one\r'));
    h.push(enc('echo tw'));
    expect(h.push(enc('o and more text'))).toBe(false);
    // The partial "echo tw" goes with the refused rest; whole lines stay.
    expect(h.state).toEqual({ held: 9, refused: 7 + 15 });
    // Nothing more is taken until what is held has been delivered, not even a line end.
    expect(h.push(enc('\r'))).toBe(false);
    expect(h.state.refused).toBe(23);
    expect(dec(h.take())).toBe('echo one\r');
    // Delivered: it takes input again; the refusal is still reported until cleared.
    expect(h.push(enc('x'))).toBe(true);
    expect(h.state.refused).toBe(23);
    h.clearRefused();
    expect(h.state).toEqual({ held: 1, refused: 0 });
  });

  it('a partial line over several chunks is dropped whole', () => {
    const h = new InputHold(12);
    h.push(enc('ls\r'));
    h.push(enc('rm '));
    h.push(enc('-rf '));
    expect(h.push(enc('/tmp/x\r'))).toBe(false);
    expect(dec(h.take())).toBe('ls\r');
  });

  it('Ctrl+C ends a line: what follows it is the partial part', () => {
    const h = new InputHold(10);
    h.push(enc('abc\x03de'));
    h.push(enc('fgh'));
    expect(h.push(enc('ijk'))).toBe(false);
    expect(dec(h.take())).toBe('abc\x03');
  });

  it('with no line end at all, everything held is refused', () => {
    const h = new InputHold(5);
    h.push(enc('abcd'));
    expect(h.push(enc('ef'))).toBe(false);
    expect(h.state).toEqual({ held: 0, refused: 6 });
    expect(h.take()).toEqual([]);
  });
});

describe('InputGate', () => {
  function setup(limit?: number) {
    const sent: string[] = [];
    let open = false;
    const states: { held: number; refused: number }[] = [];
    const gate = new InputGate(
      () => (open ? { input: (p: Uint8Array) => sent.push(new TextDecoder().decode(p)) } : null),
      (s) => states.push(s),
      limit,
    );
    return { gate, sent, states, setOpen: (v: boolean) => (open = v) };
  }

  it('sends straight through while attached', () => {
    const { gate, sent, states, setOpen } = setup();
    setOpen(true);
    gate.send(enc('ls\r'));
    expect(sent).toEqual(['ls\r']);
    expect(states).toEqual([]);
  });

  it('holds before attach and delivers in order on attach, before later keys', () => {
    const { gate, sent, states, setOpen } = setup();
    gate.send(enc('echo EA'));
    gate.send(enc('RLY-ABC\r'));
    expect(sent).toEqual([]);
    expect(states.at(-1)).toMatchObject({ held: 15, refused: 0 });
    setOpen(true);
    expect(gate.flush()).toBe(true);
    gate.send(enc('next\r'));
    expect(sent.join('')).toBe('echo EARLY-ABC\rnext\r');
    expect(states.at(-1)).toMatchObject({ held: 0, refused: 0 });
  });

  it('while disconnected keeps holding even if a key comes when it is back but not yet flushed', () => {
    const { gate, sent, setOpen } = setup();
    setOpen(true);
    gate.send(enc('a'));
    setOpen(false);
    gate.send(enc('b'));
    gate.send(enc('c'));
    expect(gate.flush()).toBe(false);
    setOpen(true);
    // A key arriving first flushes what was held ahead of itself.
    gate.send(enc('d'));
    expect(sent.join('')).toBe('abcd');
  });

  it('refuses past the bound, visibly, and clears the notice on the next typed key once sent', () => {
    const { gate, sent, states, setOpen } = setup(8);
    gate.send(enc('ls\r'));
    gate.send(enc('cat bigfile'));
    expect(states.at(-1)).toMatchObject({ held: 3, refused: 11 });
    setOpen(true);
    gate.flush();
    expect(sent).toEqual(['ls\r']);
    expect(states.at(-1)).toMatchObject({ held: 0, refused: 11 });
    gate.send(enc('x'));
    expect(states.at(-1)).toMatchObject({ held: 0, refused: 0 });
    expect(sent).toEqual(['ls\r', 'x']);
  });

  function clocked() {
    const sent: string[] = [];
    let open = true;
    let t = 0;
    const states: { cut: number; broken: boolean }[] = [];
    const gate = new InputGate(
      () => (open ? { input: (p: Uint8Array) => sent.push(new TextDecoder().decode(p)) } : null),
      (s) => states.push({ cut: s.cut, broken: s.broken }),
      undefined,
      () => t,
    );
    return { gate, sent, states, setOpen: (v: boolean) => (open = v), tick: (ms: number) => (t += ms) };
  }

  it('a line half sent just before the connection dropped: what was typed meanwhile is refused, visibly', () => {
    const { gate, sent, states, setOpen, tick } = clocked();
    gate.send(enc('echo K-klr9'));
    tick(10);
    setOpen(false);
    gate.connectionLost();
    expect(states.at(-1)).toEqual({ cut: 0, broken: true });
    gate.send(enc('a2s-42 > f\r'));
    gate.send(enc('echo next\r'));
    setOpen(true);
    gate.flush();
    // Nothing typed meanwhile is appended to the uncertain line the shell still holds.
    expect(sent.join('')).toBe('echo K-klr9');
    expect(states.at(-1)).toEqual({ cut: 21, broken: true });
    // Typed once back: sent as typed.
    gate.send(enc('x'));
    expect(sent.join('')).toBe('echo K-klr9x');
  });

  it('keys the host could not deliver: the rest of their line is refused, the pane says how many', () => {
    const { gate, sent } = clocked();
    gate.send(enc('echo ok'));
    // The host answers inputLost for ">notes" (5 bytes): the daemon died under it.
    gate.lost(5);
    expect(gate.state).toMatchObject({ lost: 5, broken: true });
    gate.send(enc('.txt\r'));
    // No cut command runs: the rest of the broken line, Enter included, is not sent.
    expect(sent.join('')).toBe('echo ok');
    gate.send(enc('ls\r'));
    expect(sent.join('')).toBe('echo okls\r');
    // A line sent after the notice: it has been seen.
    expect(gate.state).toMatchObject({ lost: 0, broken: false });
  });

  it('the notice stays until a line is sent after it', () => {
    const { gate, states, setOpen, tick } = clocked();
    gate.send(enc('echo ab'));
    tick(10);
    setOpen(false);
    gate.connectionLost();
    gate.send(enc('c'));
    setOpen(true);
    gate.flush();
    expect(states.at(-1)).toEqual({ cut: 1, broken: true });
    gate.send(enc('x'));
    expect(states.at(-1)).toEqual({ cut: 1, broken: true });
    gate.send(enc('\r'));
    expect(states.at(-1)).toEqual({ cut: 0, broken: false });
  });

  it('a line whose start was sent long before the drop is completed whole', () => {
    const { gate, sent, setOpen, tick } = clocked();
    gate.send(enc('echo K-'));
    tick(LOST_WINDOW_MS + 1);
    setOpen(false);
    gate.connectionLost();
    gate.send(enc('rest\r'));
    setOpen(true);
    gate.flush();
    expect(sent.join('')).toBe('echo K-rest\r');
    expect(gate.state).toMatchObject({ cut: 0, broken: false });
  });

  it('nothing half typed at the drop: nothing is cut', () => {
    const { gate, sent, setOpen } = clocked();
    gate.send(enc('ls\r'));
    setOpen(false);
    gate.connectionLost();
    gate.send(enc('pwd\r'));
    setOpen(true);
    gate.flush();
    expect(sent.join('')).toBe('ls\rpwd\r');
  });

  it('a new terminal in the pane does not get the rest of a line begun in the old one', () => {
    const { gate, sent, setOpen } = clocked();
    gate.send(enc('echo ok'));
    setOpen(false); // the daemon died
    gate.send(enc('>notes.txt\r'));
    gate.send(enc('echo whole\r'));
    gate.newTarget();
    setOpen(true);
    gate.flush();
    expect(sent.join('')).toBe('echo okecho whole\r');
    expect(gate.state).toMatchObject({ cut: 11, broken: true });
  });

  it('a new terminal not attached yet: the rest of a line begun in the old one, typed meanwhile, is refused', () => {
    const { gate, sent, setOpen } = clocked();
    gate.send(enc('a')); // to the old terminal (a resume is about to take the pane)
    setOpen(false); // the pane moves to the new terminal and attaches to it
    gate.newTarget();
    expect(gate.state).toMatchObject({ cut: 0, broken: false });
    gate.send(enc('nd now?\r'));
    gate.send(enc('ls\r'));
    setOpen(true);
    gate.flush();
    // "nd now?" never reaches the new terminal as a line of its own; the next line does.
    expect(sent.join('')).toBe('als\r');
    expect(gate.state).toMatchObject({ cut: 8, broken: true });
  });

  it('a new terminal with nothing held: what is typed next goes through whole', () => {
    const { gate, sent } = clocked();
    gate.send(enc('half'));
    gate.newTarget();
    gate.send(enc('ls\r'));
    expect(sent.join('')).toBe('halfls\r');
    expect(gate.state).toMatchObject({ cut: 0, broken: false });
  });
});
