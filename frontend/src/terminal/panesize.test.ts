import { describe, expect, it } from 'vitest';
import { forgetPaneSize, readPaneSize, readStartPanes, savePaneSize, saveStartPanes } from './panesize';

function mem(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, String(v)),
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
    key: (i) => [...m.keys()][i] ?? null,
    get length() {
      return m.size;
    },
  };
}

describe('pane sizes', () => {
  it('keeps a size per pane and forgets it', () => {
    const s = mem();
    expect(readPaneSize('p1', s)).toBeNull();
    savePaneSize('p1', { cols: 120, rows: 40 }, s);
    savePaneSize('p2', { cols: 80, rows: 24 }, s);
    expect(readPaneSize('p1', s)).toEqual({ cols: 120, rows: 40 });
    expect(readPaneSize('p2', s)).toEqual({ cols: 80, rows: 24 });
    forgetPaneSize('p1', s);
    expect(readPaneSize('p1', s)).toBeNull();
  });

  it('neither keeps nor believes a size that cannot be a terminal', () => {
    const s = mem();
    savePaneSize('p', { cols: 0, rows: 24 }, s);
    expect(readPaneSize('p', s)).toBeNull();
    s.setItem('reprise.paneSize.p', '99999x3');
    expect(readPaneSize('p', s)).toBeNull();
    s.setItem('reprise.paneSize.p', 'junk');
    expect(readPaneSize('p', s)).toBeNull();
  });

  it('works without a storage', () => {
    expect(readPaneSize('p', null)).toBeNull();
    savePaneSize('p', { cols: 80, rows: 24 }, null);
    forgetPaneSize('p', null);
  });
});

describe('start panes', () => {
  it('lists the last layout’s panes that have a kept size', () => {
    const s = mem();
    savePaneSize('p1', { cols: 100, rows: 30 }, s);
    saveStartPanes(
      [
        { paneId: 'p1', terminalId: 't1' },
        { paneId: 'p2', terminalId: 't2' },
      ],
      s,
    );
    expect(readStartPanes(s)).toEqual([{ paneId: 'p1', terminalId: 't1' }]);
    s.setItem('reprise.startPanes', '{bad');
    expect(readStartPanes(s)).toEqual([]);
  });
});
