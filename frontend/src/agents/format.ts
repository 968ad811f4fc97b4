// How agents and sessions read in Settings and the Sessions view.

import type { Agent, Session } from '../api';

/** "just now", "5 min ago", "3 h ago", "2 d ago", else the date. */
export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  if (isNaN(t)) return '';
  const s = Math.round((now - t) / 1000);
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 7) return `${d} d ago`;
  return new Date(t).toLocaleDateString();
}

/** A local date and time, or "" for none. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (isNaN(d.getTime())) return '';
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export type SessionEnd = 'live' | 'interrupted' | 'exited' | 'closed' | 'resumed';

/** How a session ended, in the words of the Sessions view. */
export function sessionEnd(s: Pick<Session, 'live' | 'endReason'>): SessionEnd | string {
  if (s.live || !s.endReason) return 'live';
  switch (s.endReason) {
    case 'terminal-exited':
      return 'interrupted';
    case 'detached':
      return 'exited';
    case 'disposed':
      return 'closed';
    case 'resumed':
      return 'resumed';
  }
  return s.endReason;
}

/** Env as KEY=VALUE lines, sorted by key. */
export function formatEnv(env: Readonly<Record<string, string>> | null | undefined): string {
  return Object.keys(env ?? {})
    .sort()
    .map((k) => `${k}=${env![k]}`)
    .join('\n');
}

export type EnvResult = { ok: true; env: Record<string, string> } | { ok: false; error: string };

/** KEY=VALUE lines (blank lines skipped; the value is everything after the first =). */
export function parseEnv(text: string): EnvResult {
  const env: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    const key = eq < 0 ? '' : line.slice(0, eq).trim();
    if (eq < 0 || key === '') return { ok: false, error: `line ${i + 1}: expected KEY=VALUE` };
    if (key in env) return { ok: false, error: `line ${i + 1}: ${key} is set twice` };
    env[key] = line.slice(eq + 1);
  }
  return { ok: true, env };
}

/** The letter(s) of an agent's avatar. */
export function initials(label: string): string {
  const words = label.trim().split(/[\s_-]+/).filter(Boolean);
  if (words.length === 0) return '?';
  if (words.length === 1) return words[0]!.slice(0, 1).toUpperCase();
  return (words[0]!.slice(0, 1) + words[1]!.slice(0, 1)).toUpperCase();
}

/** A stable hue for an agent id. */
export function hue(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h % 360;
}

/** Found agents first, each group in the host's order. */
export function runnableFirst(agents: readonly Agent[]): Agent[] {
  return [...agents.filter((a) => a.found), ...agents.filter((a) => !a.found)];
}

/** What the last resume of a session came to, in words. */
const OUTCOME_TITLES: Record<string, string> = {
  resuming: 'A resume was launched; the agent has not confirmed it yet',
  resumed: 'The agent confirmed it resumed this session',
  fresh: 'The agent started a new session instead',
  failed: 'The resume failed',
  unconfirmed: 'The agent reports nothing to Reprise, so the resume could not be confirmed',
};

/** The tooltip of a session's last outcome: what it means, and why when the host said. */
export function outcomeTitle(s: Pick<Session, 'lastOutcome' | 'lastOutcomeDetail'>): string {
  const outcome = s.lastOutcome ?? '';
  const what = OUTCOME_TITLES[outcome] ?? outcome;
  const why = (s.lastOutcomeDetail ?? '').trim();
  return why ? `${what}: ${why}` : what;
}
