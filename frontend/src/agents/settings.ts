// Settings → Sessions & privacy: the values as the host stores them (strings) and as the page
// shows them, with the page-side validation that keeps a bad value from ever being sent.

/** The most days a retention field takes (100 years); 0 keeps forever. */
export const MAX_RETENTION_DAYS = 36500;

export type DaysResult = { ok: true; value: string; days: number } | { ok: false; error: string };

/**
 * A retention field's text as the host wants it: a whole number of days, 0 or more, written
 * without leading zeros (the host refuses "07"). Blanks around it are ignored.
 */
export function parseDays(text: string): DaysResult {
  const t = text.trim();
  if (t === '') return { ok: false, error: 'Enter a number of days (0 keeps forever).' };
  if (/^-\s*\d+$/.test(t)) return { ok: false, error: 'The number of days can’t be negative (0 keeps forever).' };
  if (!/^\d+$/.test(t)) return { ok: false, error: 'Whole days only, like 30 (0 keeps forever).' };
  const days = parseInt(t, 10);
  if (days > MAX_RETENTION_DAYS) return { ok: false, error: `At most ${MAX_RETENTION_DAYS} days (0 keeps forever).` };
  return { ok: true, value: String(days), days };
}

/** What a retention value means, under the field. */
export function daysMeaning(value: string): string {
  const r = parseDays(value);
  if (!r.ok) return '';
  if (r.days === 0) return 'Kept forever.';
  return r.days === 1 ? 'Deleted 1 day after it ends.' : `Deleted ${r.days} days after it ends.`;
}

/** A boolean setting from the host's "true" / "false" (anything else: the default). */
export function parseBool(value: string | null | undefined, def: boolean): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return def;
}
