import { describe, expect, it } from 'vitest';
import type { Layout, RestoreReport } from '../api';
import { actionLabel, lineBinding, RestoreDismissals, restoreModel, restoreTitle, restoreVisible } from './restore';
import { binding } from './testdata';

const AT = '2026-11-29T10:00:00Z';

// After a reboot: p1 ran Claude (prompted, will resume), p2 a never-prompted Claude, p3 a shell
// (tab 2), p4 Codex whose binary is gone.
const report: RestoreReport = {
  at: AT,
  summary: "1 will resume · 2 fresh · 1 can't: codex not found",
  recovered: true,
  panes: [
    {
      tabId: 'tab1',
      paneId: 'p1',
      terminalId: 'old1',
      action: 'resume',
      agent: 'claude',
      agentLabel: 'Claude Code',
      sessionId: 's-1',
      argv: ['/opt/bin/claude', '--settings', '/h/run/claude settings.json', '--resume', 's-1'],
      cwd: '/work',
      reason: 'Claude Code was interrupted; this pane offers to resume it (Resume button)',
      transcript: '/home/me/.claude/projects/-work/s-1.jsonl',
    },
    {
      tabId: 'tab1',
      paneId: 'p2',
      terminalId: 'old2',
      action: 'fresh',
      agent: 'claude',
      agentLabel: 'Claude Code',
      sessionId: 's-2',
      reason: 'never prompted: Claude Code has no conversation to resume',
    },
    { tabId: 'tab2', paneId: 'p3', terminalId: 'old3', action: 'fresh', reason: 'shell: a new login shell starts in /work under the old output' },
    { tabId: 'tab2', paneId: 'p4', terminalId: 'old4', action: 'cannot', agent: 'codex', agentLabel: 'Codex', sessionId: 's-4', reason: 'codex not found' },
  ],
};

const layout: Layout = {
  version: 3,
  activeTabId: 'tab1',
  tabs: [
    {
      id: 'tab1',
      title: '',
      focusedPaneId: 'p1',
      root: {
        type: 'split',
        id: 'sp',
        direction: 'row',
        sizes: [0.5, 0.5],
        children: [
          { type: 'pane', id: 'p1', terminalId: 'new1' },
          { type: 'pane', id: 'p2', terminalId: 'new2' },
        ],
      },
    },
    { id: 'tab2', title: '', focusedPaneId: 'p3', root: { type: 'pane', id: 'p3', terminalId: 'new3' } },
  ],
};

const resumed = (over = {}) =>
  binding({
    terminalId: 'new1',
    sessionId: 's-1',
    resumeOf: 's-1',
    startedAt: '2026-11-29T10:00:05Z',
    endReason: '',
    endedAt: null,
    candidate: false,
    outcome: 'resumed',
    outcomeDetail: 'session s-1',
    outcomeAt: '2026-11-29T10:00:06Z',
    ...over,
  });

describe('restore summary', () => {
  it('is offered only when terminals were lost, until dismissed', () => {
    expect(restoreVisible(report, {})).toBe(true);
    expect(restoreVisible({ ...report, recovered: false }, {})).toBe(false);
    expect(restoreVisible(null, {})).toBe(false);
    expect(restoreVisible(report, { [AT]: true })).toBe(false);
    // A later report (another daemon loss) comes back even though an earlier one was dismissed.
    expect(restoreVisible({ ...report, at: '2026-11-29T11:00:00Z' }, { [AT]: true })).toBe(true);
  });

  it("uses the host's summary line", () => {
    expect(restoreTitle(report)).toBe("After restart: 1 will resume · 2 fresh · 1 can't: codex not found");
    expect(restoreTitle({ summary: '' })).toBe('After restart: nothing to restore');
  });

  it('lists each pane: action badge, agent, reason, and the argv of a resume as shell words', () => {
    const m = restoreModel(report, layout, {});
    expect(m.title).toBe(restoreTitle(report));
    expect(m.lines.map((l) => [l.paneId, l.actionLabel, l.agentLabel, l.tabNumber])).toEqual([
      ['p1', 'resume', 'Claude Code', 1],
      ['p2', 'fresh', 'Claude Code', 1],
      ['p3', 'fresh', 'Shell', 2],
      ['p4', "can't", 'Codex', 0], // its pane is gone now
    ]);
    expect(m.lines[0]!.argv).toBe("/opt/bin/claude --settings '/h/run/claude settings.json' --resume s-1");
    expect(m.lines[0]!.reason).toBe(report.panes![0]!.reason);
    expect(m.lines.slice(1).map((l) => l.argv)).toEqual([null, null, null]);
    expect(m.lines.map((l) => l.outcome)).toEqual([null, null, null, null]);
    expect(actionLabel('attach')).toBe('running');
    expect(actionLabel('something-new')).toBe('something-new');
  });

  it('names the host of each line on a remote host, and an unreachable host as unknown', () => {
    const remote: RestoreReport = {
      ...report,
      panes: [
        { ...report.panes![0]!, host: 'box' },
        { tabId: 'tab2', paneId: 'p3', terminalId: 'old3', host: 'gone', action: 'unknown', reason: 'cannot reach gone: ssh to gone: Connection refused' },
        report.panes![2]!,
      ],
    };
    const m = restoreModel(remote, layout, {});
    expect(m.lines.map((l) => [l.paneId, l.host, l.actionLabel])).toEqual([
      ['p1', 'box', 'resume'],
      ['p3', 'gone', 'unknown'],
      ['p3', '', 'fresh'],
    ]);
    expect(m.lines[1]!.reason).toBe('cannot reach gone: ssh to gone: Connection refused');
  });

  it('names the tab and pane of each line, with the pane title when known', () => {
    const titles: Record<string, string> = { p1: 'Claude Code', p3: 'work', p4: 'old' };
    const m = restoreModel(report, layout, {}, (id) => titles[id]);
    expect(m.lines.map((l) => [l.where, l.paneTitle])).toEqual([
      ['Tab 1 · pane 1 of 2', 'Claude Code'],
      ['Tab 1 · pane 2 of 2', ''],
      ['Tab 2', 'work'],
      ['pane closed', ''],
    ]);
    expect(restoreModel(report, null, {}).lines[0]!.where).toBe('pane closed');
  });

  it('shows what the resume came to, from the relaunched terminal’s binding', () => {
    const bs = { new1: resumed({ outcome: 'resuming', outcomeDetail: '', outcomeAt: '2026-11-29T10:00:05Z' }) };
    expect(restoreModel(report, layout, bs).lines[0]!.outcome?.text).toBe('Resuming Claude Code… (waiting for Claude Code to confirm)');
    const done = restoreModel(report, layout, { new1: resumed() }).lines[0]!.outcome;
    expect(done?.outcome).toBe('resumed');
    expect(done?.text).toBe('Resumed Claude Code session s-1');
    const failed = restoreModel(report, layout, { new1: resumed({ outcome: 'failed', outcomeDetail: 'exit status 1' }) }).lines[0]!.outcome;
    expect(failed?.text).toBe("Couldn't resume Claude Code: exit status 1");
  });

  it('matches the resume by agent and session, preferring the one in the pane, and ignores older outcomes', () => {
    const f = report.panes![0]!;
    // The lost terminal's own outcome (of a resume before the reboot) is not this restart's.
    const stale = resumed({ terminalId: 'old1', startedAt: '2026-11-28T09:00:00Z' });
    expect(lineBinding(f, AT, layout, { old1: stale })).toBeUndefined();
    // Started before the report: not this restart's either.
    expect(lineBinding(f, AT, layout, { x: resumed({ terminalId: 'x', startedAt: '2026-11-29T09:59:00Z' }) })).toBeUndefined();
    // Another agent or session: no.
    expect(lineBinding(f, AT, layout, { new1: resumed({ agentId: 'codex' }) })).toBeUndefined();
    expect(lineBinding(f, AT, layout, { new1: resumed({ resumeOf: 's-9' }) })).toBeUndefined();
    // Resumed in another tab later (Sessions → Resume in new tab) and in the pane: the pane wins.
    const elsewhere = resumed({ terminalId: 'tX', startedAt: '2026-11-29T10:05:00Z', outcome: 'fresh' });
    const inPane = resumed();
    expect(lineBinding(f, AT, layout, { tX: elsewhere, new1: inPane })).toBe(inPane);
    // Not in the pane: the newest.
    const older = resumed({ terminalId: 'tY', startedAt: '2026-11-29T10:01:00Z' });
    expect(lineBinding(f, AT, layout, { tY: older, tX: elsewhere })).toBe(elsewhere);
    // A shell line has no agent session.
    expect(lineBinding(report.panes![2]!, AT, layout, { new1: inPane })).toBeUndefined();
  });

  it('copes with a report without panes', () => {
    expect(restoreModel({ ...report, panes: null }, null, {}).lines).toEqual([]);
  });

  it('remembers dismissals per report across reloads, the newest few', () => {
    const mem = new Map<string, string>();
    const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) };
    const d = new RestoreDismissals(storage);
    expect(d.load()).toEqual({});
    d.save({ [AT]: true });
    expect(new RestoreDismissals(storage).load()).toEqual({ [AT]: true });
    const many: Record<string, true> = {};
    for (let i = 0; i < 30; i++) many[`2026-11-${String(i).padStart(2, '0')}`] = true;
    d.save(many);
    expect(Object.keys(d.load())).toHaveLength(RestoreDismissals.KEEP);
    mem.set('reprise.dismissedRestore', '{broken');
    expect(d.load()).toEqual({});
    expect(new RestoreDismissals(null).load()).toEqual({});
  });
});
