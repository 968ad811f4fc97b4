import { useRef, useState, type PointerEvent } from 'react';
import type { Actions } from '../actions';

/** Pixels a pointer moves before a press on a tab becomes a drag (a click below that). */
const DRAG_THRESHOLD = 5;

/** The index a dragged tab lands at: how many of the other tabs' centres lie left of x. */
export function dropIndex(x: number, centres: readonly number[]): number {
  return centres.filter((c) => c < x).length;
}

/**
 * Drag a tab along the strip to reorder it (pointer events, so mouse, pen and touch): it follows
 * the pointer and, on release, moves to where it was dropped (layout.moveTab; the host keeps it).
 */
export function useTabDrag(actions: Actions, tabId: string) {
  const [dx, setDx] = useState(0);
  const [dragging, setDragging] = useState(false);
  const start = useRef<{ x: number; id: number } | null>(null);

  const others = (el: HTMLElement) =>
    [...(el.parentElement?.querySelectorAll<HTMLElement>('[data-testid=tab]') ?? [])]
      .filter((t) => t !== el)
      .map((t) => {
        const r = t.getBoundingClientRect();
        return r.left + r.width / 2;
      });

  const end = (e: PointerEvent<HTMLElement>, drop: boolean) => {
    const s = start.current;
    start.current = null;
    if (!s) return;
    if (e.currentTarget.hasPointerCapture?.(s.id)) e.currentTarget.releasePointerCapture(s.id);
    if (dragging && drop) {
      const r = e.currentTarget.getBoundingClientRect();
      void actions.moveTab(tabId, dropIndex(r.left + r.width / 2, others(e.currentTarget)));
    }
    setDragging(false);
    setDx(0);
  };

  return {
    dragging,
    style: dragging ? { transform: `translateX(${dx}px)`, zIndex: 2 } : undefined,
    handlers: {
      onPointerDown: (e: PointerEvent<HTMLElement>) => {
        if (e.button !== 0 || (e.target as HTMLElement).closest('button,input')) return;
        start.current = { x: e.clientX, id: e.pointerId };
      },
      onPointerMove: (e: PointerEvent<HTMLElement>) => {
        const s = start.current;
        if (!s) return;
        const d = e.clientX - s.x;
        if (!dragging && Math.abs(d) < DRAG_THRESHOLD) return;
        if (!dragging) {
          e.currentTarget.setPointerCapture?.(s.id);
          setDragging(true);
        }
        setDx(d);
      },
      onPointerUp: (e: PointerEvent<HTMLElement>) => end(e, true),
      onPointerCancel: (e: PointerEvent<HTMLElement>) => end(e, false),
    },
  };
}
