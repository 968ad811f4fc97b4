import { describe, expect, it } from 'vitest';
import { daysMeaning, MAX_RETENTION_DAYS, parseBool, parseDays } from './settings';

describe('retention days', () => {
  it('takes whole days, 0 or more, as the host wants them', () => {
    expect(parseDays('0')).toEqual({ ok: true, value: '0', days: 0 });
    expect(parseDays('30')).toEqual({ ok: true, value: '30', days: 30 });
    expect(parseDays(' 7 ')).toEqual({ ok: true, value: '7', days: 7 });
    // The host refuses "007": the page sends "7".
    expect(parseDays('007')).toEqual({ ok: true, value: '7', days: 7 });
    expect(parseDays(String(MAX_RETENTION_DAYS))).toMatchObject({ ok: true });
  });

  it('refuses anything else with one line', () => {
    expect(parseDays('')).toEqual({ ok: false, error: 'Enter a number of days (0 keeps forever).' });
    expect(parseDays('   ')).toMatchObject({ ok: false });
    expect(parseDays('-1')).toEqual({ ok: false, error: 'The number of days can’t be negative (0 keeps forever).' });
    for (const bad of ['1.5', '1e3', '30d', 'thirty', '+3', '0x10', '3 0']) {
      expect(parseDays(bad)).toEqual({ ok: false, error: 'Whole days only, like 30 (0 keeps forever).' });
    }
    expect(parseDays(String(MAX_RETENTION_DAYS + 1))).toEqual({ ok: false, error: `At most ${MAX_RETENTION_DAYS} days (0 keeps forever).` });
    expect(parseDays('99999999999999999999')).toMatchObject({ ok: false });
  });

  it('says what a value means', () => {
    expect(daysMeaning('0')).toBe('Kept forever.');
    expect(daysMeaning('1')).toBe('Deleted 1 day after it ends.');
    expect(daysMeaning('30')).toBe('Deleted 30 days after it ends.');
    expect(daysMeaning('x')).toBe('');
  });

  it('reads booleans, falling back to the default', () => {
    expect(parseBool('true', false)).toBe(true);
    expect(parseBool('false', true)).toBe(false);
    expect(parseBool('', true)).toBe(true);
    expect(parseBool(null, false)).toBe(false);
  });
});
