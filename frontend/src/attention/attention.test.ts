import { describe, expect, it } from 'vitest';
import type { Binding } from '../api';
import { agentPill, decideNotify, infoFromBinding, notificationText, parseNotifyWhen, tabBadge, windowTitle, type AgentInfo, type TurnTrack } from './attention';

const T0 = Date.parse('2026-12-02T01:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const info = (state: string, extra: Partial<AgentInfo> = {}): AgentInfo => ({ terminalId: 't1', agentLabel: 'Claude Code', state, since: at(0), lastEventAt: at(0), ...extra });

describe('agentPill', () => {
  it.each([
    ['starting', 'starting'],
    ['working', 'working'],
    ['needs-input', 'needs input'],
    ['idle', 'idle'],
    ['failed-turn', 'failed turn'],
    ['interrupted', 'interrupted'],
    ['exited', 'exited'],
  ])('%s says "%s"', (state, label) => {
    expect(agentPill(info(state), T0 + 1000)).toMatchObject({ state, label, stale: false });
  });

  it('no pill for a shell (no agent state) or an unknown state', () => {
    expect(agentPill(undefined, T0)).toBeNull();
    expect(agentPill(info(''), T0)).toBeNull();
    expect(agentPill(info('dreaming'), T0)).toBeNull();
  });

  it('a working turn silent for 10 min or more says "no activity for N min", never "working"', () => {
    expect(agentPill(info('working'), T0 + 9 * 60000 + 59000)?.label).toBe('working');
    const p = agentPill(info('working'), T0 + 12 * 60000 + 5000);
    expect(p).toMatchObject({ state: 'working', label: 'no activity for 12 min', stale: true });
    // Any later hook event counts as activity.
    expect(agentPill(info('working', { lastEventAt: at(11 * 60000) }), T0 + 12 * 60000)?.label).toBe('working');
    // Only a working turn goes stale: idle for an hour is still idle.
    expect(agentPill(info('idle'), T0 + 3600000)?.label).toBe('idle');
  });

  it('uses the host detail as the tooltip of a settled state', () => {
    expect(agentPill(info('exited', { detail: 'exited (goodbye, exit status 0)' }), T0)?.detail).toBe('Exited (goodbye, exit status 0)');
  });
});

describe('tabBadge', () => {
  it('shows the most urgent state of the tab\'s panes', () => {
    expect(tabBadge(['idle', 'needs-input', 'working'], false)).toEqual({ kind: 'needs-input', label: 'An agent: needs input' });
    expect(tabBadge(['needs-input', 'needs-input'], false)?.label).toBe('2 agents: needs input');
    expect(tabBadge(['working', 'failed-turn'], false)?.kind).toBe('failed-turn');
    expect(tabBadge(['working', undefined], false)?.kind).toBe('working');
    expect(tabBadge(['idle', 'exited', 'starting', undefined], false)).toBeNull();
    expect(tabBadge([], false)).toBeNull();
  });
  it('a bell marks the tab, under an agent that needs input', () => {
    expect(tabBadge([undefined], true)?.kind).toBe('bell');
    expect(tabBadge(['working'], true)?.kind).toBe('bell');
    expect(tabBadge(['needs-input'], true)?.kind).toBe('needs-input');
  });
});

describe('windowTitle', () => {
  it('is the active pane\'s title with the app name, prefixed while agents need input', () => {
    expect(windowTitle('bash', [])).toBe('bash — Reprise');
    expect(windowTitle('', ['idle'])).toBe('Reprise');
    expect(windowTitle('Claude Code', ['needs-input', 'working'])).toBe('(1 needs input) Claude Code — Reprise');
    expect(windowTitle('vim', ['needs-input', 'needs-input'])).toBe('(2 needs input) vim — Reprise');
  });
});

describe('decideNotify', () => {
  const away = { inFront: false, when: 'needs-input-and-finished' as const };
  /** Feeds states in order; returns what each raised. */
  const run = (states: string[], opts: { inFront?: boolean[]; when?: 'off' | 'needs-input' | 'needs-input-and-finished'; seedFirst?: boolean } = {}) => {
    let track: TurnTrack | undefined;
    return states.map((s, i) => {
      const d = decideNotify(track, s, { inFront: opts.inFront?.[i] ?? false, when: opts.when ?? 'needs-input-and-finished', seed: opts.seedFirst && i === 0 });
      track = d.track;
      return d.raise;
    });
  };

  it('raises needs-input and finished once each per turn', () => {
    expect(run(['starting', 'working', 'needs-input', 'working', 'idle'])).toEqual([null, null, 'needs-input', null, 'finished']);
  });

  it('never twice for the same turn: a second prompt, or the same state again', () => {
    expect(run(['working', 'needs-input', 'working', 'needs-input', 'working', 'idle', 'idle'])).toEqual([null, 'needs-input', null, null, null, 'finished', null]);
  });

  it('a new turn can raise again', () => {
    expect(run(['working', 'idle', 'working', 'idle'])).toEqual([null, 'finished', null, 'finished']);
    expect(run(['idle', 'needs-input', 'idle', 'needs-input'])).toEqual([null, 'needs-input', 'finished', 'needs-input']);
  });

  it('a failed turn raises as failed; idle without a turn (startup) raises nothing', () => {
    expect(run(['working', 'failed-turn'])).toEqual([null, 'failed']);
    expect(run(['starting', 'idle', 'exited'])).toEqual([null, null, null]);
    expect(run(['working', 'interrupted'])).toEqual([null, null]);
  });

  it('not while the pane is in front, and not later for what was seen', () => {
    expect(run(['working', 'needs-input', 'working', 'idle'], { inFront: [false, true, false, true] })).toEqual([null, null, null, null]);
    // Seen needs-input; the finish, away, still raises.
    expect(run(['working', 'needs-input', 'working', 'idle'], { inFront: [false, true, false, false] })).toEqual([null, null, null, 'finished']);
  });

  it('follows the setting', () => {
    expect(run(['working', 'needs-input', 'working', 'idle'], { when: 'needs-input' })).toEqual([null, 'needs-input', null, null]);
    expect(run(['working', 'needs-input', 'working', 'idle'], { when: 'off' })).toEqual([null, null, null, null]);
  });

  it('the state found on load is not news, but the open turn it is in can still finish', () => {
    expect(run(['needs-input', 'working', 'idle'], { seedFirst: true })).toEqual([null, null, 'finished']);
    expect(run(['idle', 'idle'], { seedFirst: true })).toEqual([null, null]);
  });

  it('keeps the turn number for notification tags', () => {
    let t = decideNotify(undefined, 'working', away).track;
    expect(t.turn).toBe(1);
    t = decideNotify(t, 'idle', away).track;
    t = decideNotify(t, 'needs-input', away).track;
    expect(t.turn).toBe(2);
  });
});

describe('parseNotifyWhen / notificationText', () => {
  it('defaults to needs input and finished', () => {
    expect(parseNotifyWhen(undefined)).toBe('needs-input-and-finished');
    expect(parseNotifyWhen('bogus')).toBe('needs-input-and-finished');
    expect(parseNotifyWhen('off')).toBe('off');
  });
  it('names the agent and its folder', () => {
    expect(notificationText('needs-input', { agentLabel: 'Claude Code', cwd: '/home/u/proj/' })).toEqual({ title: 'Claude Code needs your input', body: 'in proj' });
    expect(notificationText('finished', { agentLabel: 'Codex' }).title).toBe('Codex finished its turn');
  });
});

describe('infoFromBinding', () => {
  const b = (agentState: string, lastEventAt: string): Binding =>
    ({ terminalId: 't1', paneId: 'p1', agentId: 'claude', agentLabel: 'Claude Code', cwd: '/w', startedAt: at(0), lastEventAt, prompted: true, canResume: true, resumable: false, candidate: false, agentState }) as Binding;
  it('takes the pushed state; since moves only when the state changes', () => {
    const a = infoFromBinding(b('working', at(1000)), undefined);
    expect(a).toMatchObject({ state: 'working', since: at(1000), paneId: 'p1', agentLabel: 'Claude Code' });
    const a2 = infoFromBinding(b('working', at(5000)), a!);
    expect(a2?.since).toBe(at(1000));
    expect(a2?.lastEventAt).toBe(at(5000));
    expect(infoFromBinding(b('needs-input', at(6000)), a2!)?.since).toBe(at(6000));
  });
  it('history (no agentState) is no state', () => {
    expect(infoFromBinding(b('', at(0)), undefined)).toBeNull();
  });
});
