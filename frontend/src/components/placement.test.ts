import { describe, expect, it } from 'vitest';
import { placeMenu } from './ContextMenu';
import { dropIndex } from './useTabDrag';

describe('placeMenu', () => {
  it('opens at the pointer when it fits', () => {
    expect(placeMenu(100, 100, 200, 300, 1600, 900)).toEqual({ left: 100, top: 100 });
  });

  it('flips left and up near the right and bottom edges of a 700 px window', () => {
    expect(placeMenu(690, 670, 220, 260, 700, 700)).toEqual({ left: 470, top: 410 });
  });

  it('stays inside a window smaller than the flip would need', () => {
    const p = placeMenu(50, 650, 220, 680, 700, 700);
    expect(p.top).toBe(4);
    expect(p.left).toBe(50);
  });
});

describe('dropIndex', () => {
  it('counts the other tabs whose centre is left of the dragged one', () => {
    const centres = [50, 150, 250];
    expect(dropIndex(10, centres)).toBe(0);
    expect(dropIndex(160, centres)).toBe(2);
    expect(dropIndex(999, centres)).toBe(3);
  });
});
