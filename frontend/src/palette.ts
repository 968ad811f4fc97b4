// The command palette's filter: a fuzzy match of the typed letters, in order, against an action's
// title (and its shortcut), ranked so word starts and runs of letters come first.

import { COMMANDS, type Command } from './keys';

/** A score for how well query matches text (higher is better), or null when it does not. */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.toLowerCase().replace(/\s+/g, '');
  if (!q) return 0;
  const t = text.toLowerCase();
  let score = 0;
  let ti = 0;
  let prev = -2;
  for (const ch of q) {
    const i = t.indexOf(ch, ti);
    if (i < 0) return null;
    const wordStart = i === 0 || /[\s:+\-/(]/.test(t[i - 1]!);
    score += 1 + (i === prev + 1 ? 3 : 0) + (wordStart ? 4 : 0) - Math.min(3, (i - ti) * 0.1);
    prev = i;
    ti = i + 1;
  }
  // A shorter title with the same letters is the closer match.
  return score - t.length * 0.01;
}

/** The palette's rows for query, best first; an empty query lists them in table order. */
export function filterCommands(query: string, commands: readonly Command[] = COMMANDS): Command[] {
  const shown = commands.filter((c) => !c.hidden);
  if (!query.trim()) return shown;
  const scored: { c: Command; s: number; i: number }[] = [];
  shown.forEach((c, i) => {
    const s = Math.max(fuzzyScore(query, c.title) ?? -Infinity, (fuzzyScore(query, c.keys.join(' ')) ?? -Infinity) - 5);
    if (s > -Infinity) scored.push({ c, s, i });
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map((x) => x.c);
}
