import { describe, expect, it } from 'vitest';
import { COMMANDS } from './keys';
import { filterCommands, fuzzyScore } from './palette';

const ids = (q: string) => filterCommands(q).map((c) => c.id);

describe('the palette filter', () => {
  it('lists every action but the numbered tab jumps when empty', () => {
    expect(ids('')).toEqual(COMMANDS.filter((c) => !c.hidden).map((c) => c.id));
    expect(ids('')).not.toContain('goToTab2');
    expect(ids('')).toContain('goToLastTab');
  });

  it('matches letters in order, not necessarily together', () => {
    expect(fuzzyScore('spr', 'Split right')).not.toBeNull();
    expect(fuzzyScore('rps', 'Split right')).toBeNull();
    expect(ids('spr')[0]).toBe('splitRight');
    expect(ids('split d')[0]).toBe('splitDown');
    expect(ids('zoom')).toEqual(expect.arrayContaining(['zoomIn', 'zoomOut', 'zoomReset']));
    expect(ids('xyzzy')).toEqual([]);
  });

  it('ranks word starts above letters inside words', () => {
    expect(ids('nt')[0]).toBe('newTab');
    expect(ids('ren')[0]).toBe('renameTab');
  });

  it('finds an action by its shortcut too', () => {
    expect(ids('ctrl+shift+d')[0]).toBe('splitRight');
  });
});
