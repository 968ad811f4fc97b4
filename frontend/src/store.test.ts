import { describe, expect, it } from 'vitest';
import type { Layout } from './api';
import { Store } from './store';

const l = (version: number): Layout => ({ version, tabs: [], activeTabId: String(version) });

describe('Store', () => {
  it('drops layouts older than the one it has, unless forced (hello)', () => {
    const s = new Store();
    let n = 0;
    s.subscribe(() => n++);
    s.setLayout(l(5));
    s.setLayout(l(4));
    expect(s.get().layout?.version).toBe(5);
    s.setLayout(l(6));
    expect(s.get().layout?.version).toBe(6);
    s.setLayout(l(2), true); // a restarted host may start over
    expect(s.get().layout?.version).toBe(2);
    expect(n).toBe(3);
  });

  it('does not notify when nothing changed', () => {
    const s = new Store();
    let n = 0;
    s.subscribe(() => n++);
    s.setTitle('t1', 'vim');
    s.setTitle('t1', 'vim');
    s.setPaneError('p1', null);
    s.set('searchPaneId', null);
    expect(n).toBe(1);
  });
});
