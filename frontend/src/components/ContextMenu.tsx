import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useServices } from '../context';
import { useStore } from '../store';

/** Keeps a box of w×h placed at (x, y) inside a window of W×H (flipping left/up when it would overflow). */
export function placeMenu(x: number, y: number, w: number, h: number, W: number, H: number, margin = 4): { left: number; top: number } {
  let left = x + w + margin > W ? x - w : x;
  let top = y + h + margin > H ? y - h : y;
  left = Math.max(margin, Math.min(left, W - w - margin));
  top = Math.max(margin, Math.min(top, H - h - margin));
  return { left, top };
}

/** The one context menu (a pane's or a tab's): arrows move, Enter runs, Esc closes, focus goes back. */
export function ContextMenu() {
  const { store, actions } = useServices();
  const menu = useStore(store, (s) => s.menu);
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState<{ left: number; top: number } | null>(null);
  const [active, setActive] = useState(0);
  const items = menu?.items ?? [];

  useLayoutEffect(() => {
    const el = ref.current;
    if (!menu || !el) return;
    const r = el.getBoundingClientRect();
    setPos(placeMenu(menu.x, menu.y, r.width, r.height, window.innerWidth, window.innerHeight));
    setActive(Math.max(0, menu.items.findIndex((i) => !i.disabled)));
  }, [menu]);

  useEffect(() => {
    if (!menu) return;
    ref.current?.querySelectorAll<HTMLElement>('[role=menuitem]')[active]?.focus();
  }, [menu, active, pos]);

  useEffect(() => {
    if (!menu) return;
    const onPointer = (e: PointerEvent) => {
      if (!ref.current?.contains(e.target as Node)) actions.closeMenu(false);
    };
    const onBlur = () => actions.closeMenu(false);
    window.addEventListener('pointerdown', onPointer, true);
    window.addEventListener('blur', onBlur);
    window.addEventListener('resize', onBlur);
    return () => {
      window.removeEventListener('pointerdown', onPointer, true);
      window.removeEventListener('blur', onBlur);
      window.removeEventListener('resize', onBlur);
    };
  }, [menu, actions]);

  if (!menu) return null;

  const step = (from: number, d: number) => {
    for (let k = 1; k <= items.length; k++) {
      const i = (from + d * k + items.length * k) % items.length;
      if (!items[i]?.disabled) return i;
    }
    return from;
  };
  const runAt = (i: number) => {
    const it = items[i];
    if (!it || it.disabled) return;
    actions.closeMenu(true);
    it.run();
  };

  return (
    <div
      ref={ref}
      className="context-menu"
      role="menu"
      aria-label={menu.label}
      data-testid="context-menu"
      style={pos ? { left: pos.left, top: pos.top } : { left: menu.x, top: menu.y, visibility: 'hidden' }}
      onContextMenu={(e) => e.preventDefault()}
      onKeyDown={(e) => {
        // The menu's keys stop here: none reaches the terminal or the window's shortcuts.
        e.stopPropagation();
        if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          e.preventDefault();
          setActive((a) => step(a, e.key === 'ArrowDown' ? 1 : -1));
        } else if (e.key === 'Home' || e.key === 'End') {
          e.preventDefault();
          setActive(step(e.key === 'Home' ? -1 : 0, e.key === 'Home' ? 1 : -1));
        } else if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          runAt(active);
        } else if (e.key === 'Escape' || e.key === 'Tab') {
          e.preventDefault();
          actions.closeMenu(true);
        }
      }}
    >
      {items.map((it, i) => (
        <div key={it.id} className={'menu-row' + (it.separator && i > 0 ? ' separated' : '')}>
          <button
            role="menuitem"
            className={'menu-item' + (i === active ? ' active' : '')}
            data-testid="menu-item"
            data-action={it.id}
            tabIndex={i === active ? 0 : -1}
            aria-disabled={it.disabled || undefined}
            disabled={it.disabled}
            onPointerEnter={() => !it.disabled && setActive(i)}
            onClick={() => runAt(i)}
          >
            <span className="menu-label">{it.label}</span>
            {it.keys && <kbd className="menu-keys">{it.keys}</kbd>}
          </button>
        </div>
      ))}
    </div>
  );
}
