import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/**
 * The scrolling strip of tabs. The active tab is scrolled into view whenever it changes (or the
 * strip gets narrower); a fade on either edge says there are more tabs that way; the mouse wheel
 * scrolls it sideways. The "+" lives outside it, so it never scrolls away.
 */
export function TabStrip({ activeId, count, children }: { activeId: string; count: number; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ left: false, right: false });

  const measure = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const left = el.scrollLeft > 1;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    setMore((m) => (m.left === left && m.right === right ? m : { left, right }));
  }, []);

  const reveal = useCallback(() => {
    const el = ref.current;
    const tab = el?.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(activeId)}"]`);
    if (!el || !tab) return;
    // Not scrollIntoView: that would scroll the page's other scrollable ancestors too.
    const a = tab.getBoundingClientRect().left - el.getBoundingClientRect().left + el.scrollLeft;
    const b = a + tab.getBoundingClientRect().width;
    if (a < el.scrollLeft) el.scrollLeft = a;
    else if (b > el.scrollLeft + el.clientWidth) el.scrollLeft = b - el.clientWidth;
    measure();
  }, [activeId, measure]);

  useLayoutEffect(reveal, [reveal, count]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(reveal);
    ro.observe(el);
    const onWheel = (e: WheelEvent) => {
      if (Math.abs(e.deltaY) <= Math.abs(e.deltaX) || el.scrollWidth <= el.clientWidth) return;
      e.preventDefault();
      el.scrollLeft += e.deltaY;
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      ro.disconnect();
      el.removeEventListener('wheel', onWheel);
    };
  }, [reveal]);

  return (
    <div className={'tab-strip' + (more.left ? ' more-left' : '') + (more.right ? ' more-right' : '')} data-testid="tab-strip">
      <div className="tabs" role="tablist" aria-label="Tabs" ref={ref} onScroll={measure} data-testid="tabs">
        {children}
      </div>
    </div>
  );
}
