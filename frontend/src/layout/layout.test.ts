import { describe, expect, it } from 'vitest';
import type { Layout, Node, SplitNode, Tab } from '../api';
import {
  activeTab,
  dragSizes,
  findPane,
  findPaneByTerminal,
  findSplit,
  focusedPane,
  neighbour,
  normSizes,
  paneRects,
  panesInOrder,
  stepPane,
  stepTab,
} from './layout';

const pane = (id: string): Node => ({ type: 'pane', id, terminalId: 't-' + id });
const row = (id: string, children: Node[], sizes?: number[]): Node => ({
  type: 'split',
  id,
  direction: 'row',
  sizes: sizes ?? children.map(() => 1 / children.length),
  children,
});
const col = (id: string, children: Node[], sizes?: number[]): Node => ({
  type: 'split',
  id,
  direction: 'column',
  sizes: sizes ?? children.map(() => 1 / children.length),
  children,
});

// ┌───┬───┐
// │   │ b │
// │ a ├─┬─┤
// │   │c│d│
// ├───┴─┴─┤
// │   e   │
// └───────┘
const tree = col('s0', [row('s1', [pane('a'), col('s2', [pane('b'), row('s3', [pane('c'), pane('d')])])]), pane('e')], [0.7, 0.3]);
const tab: Tab = { id: 'tab1', title: '', root: tree, focusedPaneId: 'c' };
const tab2: Tab = { id: 'tab2', title: '', root: pane('x'), focusedPaneId: 'x' };
const tab3: Tab = { id: 'tab3', title: '', root: pane('y'), focusedPaneId: 'gone' };
const layout: Layout = { version: 3, tabs: [tab, tab2, tab3], activeTabId: 'tab2' };

describe('layout', () => {
  it('lists panes in visual order', () => {
    expect(panesInOrder(tree).map((p) => p.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(panesInOrder(pane('z')).map((p) => p.id)).toEqual(['z']);
  });

  it('finds panes by id and by terminal id', () => {
    expect(findPane(layout, 'd')?.tab.id).toBe('tab1');
    expect(findPane(layout, 'x')?.pane.terminalId).toBe('t-x');
    expect(findPane(layout, 'nope')).toBeUndefined();
    expect(findPaneByTerminal(layout, 't-e')?.pane.id).toBe('e');
    expect(findPaneByTerminal(layout, 't-y')?.tab.id).toBe('tab3');
    expect(findPaneByTerminal(layout, 'nope')).toBeUndefined();
  });

  it('finds splits', () => {
    expect(findSplit(tree, 's3')?.children.length).toBe(2);
    expect(findSplit(tree, 'a')).toBeUndefined();
  });

  it('resolves the active tab and the focused pane', () => {
    expect(activeTab(layout)?.id).toBe('tab2');
    expect(activeTab({ ...layout, activeTabId: 'missing' })?.id).toBe('tab1');
    expect(activeTab({ version: 0, tabs: [], activeTabId: '' })).toBeUndefined();
    expect(focusedPane(tab)?.id).toBe('c');
    expect(focusedPane(tab3)?.id).toBe('y');
  });

  it('steps through panes and tabs with wrap-around', () => {
    expect(stepPane(tab, 'c', 1)?.id).toBe('d');
    expect(stepPane(tab, 'e', 1)?.id).toBe('a');
    expect(stepPane(tab, 'a', -1)?.id).toBe('e');
    expect(stepPane(tab, 'missing', 1)?.id).toBe('a');
    expect(stepPane(tab2, 'x', 1)?.id).toBe('x');
    expect(stepTab(layout, 1)?.id).toBe('tab3');
    expect(stepTab(layout, 2)?.id).toBe('tab1');
    expect(stepTab(layout, -1)?.id).toBe('tab1');
    expect(stepTab({ ...layout, tabs: [] }, 1)).toBeUndefined();
  });

  it('computes pane rectangles from sizes', () => {
    const r = paneRects(tree);
    expect(r.get('a')).toEqual({ x0: 0, y0: 0, x1: 0.5, y1: 0.7 });
    expect(r.get('e')).toEqual({ x0: 0, y0: 0.7, x1: 1, y1: 1 });
    expect(r.get('d')!.x0).toBeCloseTo(0.75);
    expect(r.get('d')!.y0).toBeCloseTo(0.35);
  });

  it('normalises bad sizes', () => {
    const s: SplitNode = { type: 'split', id: 's', direction: 'row', sizes: [2, 2], children: [pane('a'), pane('b')] };
    expect(normSizes(s)).toEqual([0.5, 0.5]);
    expect(normSizes({ ...s, sizes: [] })).toEqual([0.5, 0.5]);
    expect(normSizes({ ...s, sizes: [0, -1] })).toEqual([0.5, 0.5]);
    expect(normSizes({ ...s, sizes: [3, NaN] })).toEqual([1, 0]);
  });

  it('finds the neighbour in each direction', () => {
    expect(neighbour(tab, 'a', 'right')?.id).toBe('b'); // b and c tie on overlap and distance; b comes first
    expect(neighbour(tab, 'a', 'down')?.id).toBe('e');
    expect(neighbour(tab, 'a', 'left')).toBeUndefined();
    expect(neighbour(tab, 'a', 'up')).toBeUndefined();
    expect(neighbour(tab, 'b', 'down')?.id).toBe('c'); // c and d tie; c comes first
    expect(neighbour(tab, 'c', 'right')?.id).toBe('d');
    expect(neighbour(tab, 'd', 'left')?.id).toBe('c');
    expect(neighbour(tab, 'c', 'left')?.id).toBe('a');
    expect(neighbour(tab, 'd', 'up')?.id).toBe('b');
    expect(neighbour(tab, 'd', 'down')?.id).toBe('e');
    expect(neighbour(tab, 'e', 'up')?.id).toBe('a'); // a spans half; b-column's c, d a quarter each
    expect(neighbour(tab, 'e', 'down')).toBeUndefined();
    expect(neighbour(tab, 'missing', 'up')).toBeUndefined();
  });

  it('prefers the neighbour nearest the centre line on equal overlap', () => {
    // ┌───┬───┐
    // │ p │ q │   r and s both overlap p's bottom edge by 0.25, but r's centre
    // ├─┬─┴───┤   (0.125) is nearer p's (0.25) than s's (0.625) is.
    // │r│  s  │
    // └─┴─────┘
    const t: Tab = {
      id: 't',
      title: '',
      focusedPaneId: 'p',
      root: col('c', [row('top', [pane('p'), pane('q')]), row('bot', [pane('r'), pane('s')], [0.25, 0.75])]),
    };
    expect(neighbour(t, 'p', 'down')?.id).toBe('r');
    expect(neighbour(t, 'q', 'down')?.id).toBe('s');
    expect(neighbour(t, 's', 'up')?.id).toBe('q');
  });

  it('moves a divider, keeping a minimum size and the pair total', () => {
    expect(dragSizes([0.5, 0.5], 0, 0.1)).toEqual([0.6, 0.4]);
    const s = dragSizes([0.2, 0.3, 0.5], 1, 0.6);
    expect(s[0]).toBe(0.2);
    expect(s[1]).toBeCloseTo(0.75);
    expect(s[2]).toBeCloseTo(0.05);
    expect(dragSizes([0.5, 0.5], 0, -1)).toEqual([0.05, 0.95]);
    expect(dragSizes([0.5, 0.5], 1, 0.1)).toEqual([0.5, 0.5]);
  });
});
