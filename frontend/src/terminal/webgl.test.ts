import { describe, expect, it } from 'vitest';
import { WebglLifecycle } from './webgl';

class FakeAddon {
  disposed = false;
  lose: (() => void) | null = null;
  onContextLoss(cb: () => void) {
    this.lose = cb;
  }
  dispose() {
    this.disposed = true;
  }
}

function lifecycle(wanted = true, failLoad = false) {
  const made: FakeAddon[] = [];
  const loaded: FakeAddon[] = [];
  let changes = 0;
  const w = new WebglLifecycle<FakeAddon>(
    wanted,
    () => {
      const a = new FakeAddon();
      made.push(a);
      return a;
    },
    (a) => {
      if (failLoad) throw new Error('no webgl2');
      loaded.push(a);
    },
    () => changes++,
  );
  return { w, made, loaded, changes: () => changes };
}

describe('WebglLifecycle', () => {
  it('loads WebGL when the pane is shown and disposes it when hidden', () => {
    const { w, made, loaded } = lifecycle();
    expect(w.current).toBeNull();
    w.setVisible(true);
    expect(loaded).toHaveLength(1);
    expect(w.current).toBe(made[0]);
    w.setVisible(false);
    expect(made[0]!.disposed).toBe(true);
    expect(w.current).toBeNull();
    w.setVisible(true);
    expect(made).toHaveLength(2);
    expect(w.current).toBe(made[1]);
    expect(made[1]!.disposed).toBe(false);
  });

  it('falls back to the DOM renderer for good after a lost context', () => {
    const { w, made, changes } = lifecycle();
    w.setVisible(true);
    made[0]!.lose!();
    expect(made[0]!.disposed).toBe(true);
    expect(w.current).toBeNull();
    expect(w.fellBack).toBe(true);
    w.setVisible(false);
    w.setVisible(true);
    expect(made).toHaveLength(1);
    expect(changes()).toBe(2);
  });

  it('ignores a late context loss of an addon already released', () => {
    const { w, made } = lifecycle();
    w.setVisible(true);
    w.setVisible(false);
    made[0]!.lose!();
    expect(w.fellBack).toBe(false);
    w.setVisible(true);
    expect(w.current).toBe(made[1]);
  });

  it('stays on the DOM renderer when WebGL is not wanted or fails to load', () => {
    const off = lifecycle(false);
    off.w.setVisible(true);
    expect(off.made).toHaveLength(0);
    const bad = lifecycle(true, true);
    bad.w.setVisible(true);
    expect(bad.w.current).toBeNull();
    expect(bad.w.fellBack).toBe(true);
    bad.w.setVisible(false);
    bad.w.setVisible(true);
    expect(bad.made).toHaveLength(1);
  });

  it('releases the addon on dispose and loads none after', () => {
    const { w, made } = lifecycle();
    w.setVisible(true);
    w.dispose();
    expect(made[0]!.disposed).toBe(true);
    w.setVisible(false);
    w.setVisible(true);
    expect(made).toHaveLength(1);
  });
});

describe('WebglLifecycle.setWanted', () => {
  it('follows the renderer setting while shown', () => {
    const { w, made } = lifecycle(false);
    w.setVisible(true);
    expect(w.current).toBeNull();
    w.setWanted(true);
    expect(w.current).toBe(made[0]);
    w.setWanted(false);
    expect(made[0]!.disposed).toBe(true);
    expect(w.current).toBeNull();
    w.setVisible(false);
    w.setWanted(true);
    expect(made).toHaveLength(1);
    w.setVisible(true);
    expect(w.current).toBe(made[1]);
  });
});
