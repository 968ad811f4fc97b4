// Pure queries over the host's layout. The host owns the layout and sends it
// whole; the page only reads it to decide which pane or tab to ask for.

import type { Layout, Node, PaneNode, SplitNode, Tab } from '../api';

export type FocusDirection = 'left' | 'right' | 'up' | 'down';

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Panes under node in visual order: left to right, top to bottom. */
export function panesInOrder(node: Node): PaneNode[] {
  if (node.type === 'pane') return [node];
  return node.children.flatMap(panesInOrder);
}

export function activeTab(layout: Layout): Tab | undefined {
  return layout.tabs.find((t) => t.id === layout.activeTabId) ?? layout.tabs[0];
}

export function findTab(layout: Layout, tabId: string): Tab | undefined {
  return layout.tabs.find((t) => t.id === tabId);
}

export interface PaneLocation {
  tab: Tab;
  pane: PaneNode;
}

export function findPane(layout: Layout, paneId: string): PaneLocation | undefined {
  for (const tab of layout.tabs) {
    const pane = panesInOrder(tab.root).find((p) => p.id === paneId);
    if (pane) return { tab, pane };
  }
  return undefined;
}

export function findPaneByTerminal(layout: Layout, terminalId: string): PaneLocation | undefined {
  for (const tab of layout.tabs) {
    const pane = panesInOrder(tab.root).find((p) => p.terminalId === terminalId);
    if (pane) return { tab, pane };
  }
  return undefined;
}

export function findSplit(node: Node, splitId: string): SplitNode | undefined {
  if (node.type === 'pane') return undefined;
  if (node.id === splitId) return node;
  for (const c of node.children) {
    const s = findSplit(c, splitId);
    if (s) return s;
  }
  return undefined;
}

/** The focused pane of a tab, or its first pane when the focus names none. */
export function focusedPane(tab: Tab): PaneNode | undefined {
  const panes = panesInOrder(tab.root);
  return panes.find((p) => p.id === tab.focusedPaneId) ?? panes[0];
}

/** The pane delta steps from paneId in visual order, wrapping around. */
export function stepPane(tab: Tab, paneId: string, delta: number): PaneNode | undefined {
  const panes = panesInOrder(tab.root);
  if (panes.length === 0) return undefined;
  const i = panes.findIndex((p) => p.id === paneId);
  if (i < 0) return panes[0];
  return panes[mod(i + delta, panes.length)];
}

/** The tab delta steps from the active tab, wrapping around. */
export function stepTab(layout: Layout, delta: number): Tab | undefined {
  const n = layout.tabs.length;
  if (n === 0) return undefined;
  const i = layout.tabs.findIndex((t) => t.id === layout.activeTabId);
  return layout.tabs[mod((i < 0 ? 0 : i) + delta, n)];
}

/** Normalised sizes: one per child, positive, summing to 1. */
export function normSizes(split: SplitNode): number[] {
  const n = split.children.length;
  const raw = split.sizes && split.sizes.length === n ? split.sizes : new Array<number>(n).fill(1);
  const clean = raw.map((s) => (Number.isFinite(s) && s > 0 ? s : 0));
  const total = clean.reduce((a, b) => a + b, 0);
  if (total <= 0) return new Array<number>(n).fill(1 / n);
  return clean.map((s) => s / total);
}

/** Each pane's rectangle within the unit square. */
export function paneRects(node: Node, rect: Rect = { x0: 0, y0: 0, x1: 1, y1: 1 }): Map<string, Rect> {
  const out = new Map<string, Rect>();
  const walk = (n: Node, r: Rect) => {
    if (n.type === 'pane') {
      out.set(n.id, r);
      return;
    }
    const sizes = normSizes(n);
    let at = n.direction === 'row' ? r.x0 : r.y0;
    const span = n.direction === 'row' ? r.x1 - r.x0 : r.y1 - r.y0;
    n.children.forEach((c, i) => {
      const end = i === n.children.length - 1 ? (n.direction === 'row' ? r.x1 : r.y1) : at + span * sizes[i]!;
      walk(c, n.direction === 'row' ? { x0: at, y0: r.y0, x1: end, y1: r.y1 } : { x0: r.x0, y0: at, x1: r.x1, y1: end });
      at = end;
    });
  };
  walk(node, rect);
  return out;
}

const EPS = 1e-6;

/**
 * The pane next to paneId in a direction (Alt+Arrow): among panes whose edge
 * touches ours on that side, the one sharing the longest border; ties go to
 * the one nearest our centre line, then the first in visual order. Undefined
 * at the window's edge.
 */
export function neighbour(tab: Tab, paneId: string, dir: FocusDirection): PaneNode | undefined {
  const rects = paneRects(tab.root);
  const cur = rects.get(paneId);
  if (!cur) return undefined;
  const horizontal = dir === 'left' || dir === 'right';
  let best: { id: string; overlap: number; dist: number } | undefined;
  for (const [id, r] of rects) {
    if (id === paneId) continue;
    const touches =
      dir === 'right' ? near(r.x0, cur.x1) : dir === 'left' ? near(r.x1, cur.x0) : dir === 'down' ? near(r.y0, cur.y1) : near(r.y1, cur.y0);
    if (!touches) continue;
    const overlap = horizontal
      ? Math.min(r.y1, cur.y1) - Math.max(r.y0, cur.y0)
      : Math.min(r.x1, cur.x1) - Math.max(r.x0, cur.x0);
    if (overlap <= EPS) continue;
    const dist = horizontal
      ? Math.abs((r.y0 + r.y1) / 2 - (cur.y0 + cur.y1) / 2)
      : Math.abs((r.x0 + r.x1) / 2 - (cur.x0 + cur.x1) / 2);
    // rects iterates in visual order, so on a full tie the top/left one wins.
    if (!best || overlap > best.overlap + EPS || (Math.abs(overlap - best.overlap) <= EPS && dist < best.dist - EPS)) {
      best = { id, overlap, dist };
    }
  }
  return best ? panesInOrder(tab.root).find((p) => p.id === best.id) : undefined;
}

/**
 * New sizes for a split after dragging the divider after child `index` by
 * `delta` (a fraction of the split's length). Only the two children beside the
 * divider change; each keeps at least `min`.
 */
export function dragSizes(sizes: number[], index: number, delta: number, min = 0.05): number[] {
  const out = sizes.slice();
  const a = out[index];
  const b = out[index + 1];
  if (a === undefined || b === undefined) return out;
  const pair = a + b;
  const lo = Math.min(min, pair / 2);
  const na = clamp(a + delta, lo, pair - lo);
  out[index] = na;
  out[index + 1] = pair - na;
  return out;
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= EPS;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
