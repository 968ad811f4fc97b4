// The restore summary after a restart: the host's forecast (restore.report / the "restore"
// event) pane by pane, with what actually happened once the resumed agents said so. Pure.

import type { Binding, Layout, PaneForecast, RestoreReport } from '../api';
import { Dismissals } from './banner';
import { findPane, panesInOrder } from '../layout/layout';
import { outcomeNotice, type OutcomeNotice } from './outcome';
import { joinWords } from './shellwords';

export interface RestoreLine {
  paneId: string;
  tabId: string;
  /** 1-based position of the pane's tab now; 0 when the pane is gone. */
  tabNumber: number;
  /** Where the pane is: "Tab 2", "Tab 1 · pane 2 of 3", or "pane closed". */
  where: string;
  /** The pane's title as its header shows it, when known. */
  paneTitle: string;
  /** The remote host the pane's terminal runs on; '' for this machine. */
  host: string;
  action: string;
  /** The badge: running, resume, fresh, can't, unknown. */
  actionLabel: string;
  /** The agent's label, or "Shell". */
  agentLabel: string;
  sessionId: string;
  reason: string;
  /** For a resume: the exact argv as shell words. */
  argv: string | null;
  /** What the resume launched since did, once known. */
  outcome: OutcomeNotice | null;
}

export interface RestoreModel {
  at: string;
  /** The status bar's line: "After restart: 1 will resume · 2 fresh". */
  title: string;
  lines: RestoreLine[];
}

const ACTION_LABELS: Record<string, string> = {
  attach: 'running',
  resume: 'resume',
  fresh: 'fresh',
  cannot: "can't",
  unknown: 'unknown',
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

/** Whether the status bar offers the summary: some terminals were lost, and it was not dismissed. */
export function restoreVisible(report: RestoreReport | null, dismissed: Readonly<Record<string, true>>): report is RestoreReport {
  return !!report && report.recovered && !dismissed[report.at];
}

export function restoreTitle(report: Pick<RestoreReport, 'summary'>): string {
  return `After restart: ${report.summary || 'nothing to restore'}`;
}

const time = (iso: string | null | undefined): number => (iso ? new Date(iso).getTime() : NaN);

/**
 * The binding of the resume launched for forecast line f since the report: same agent, resumeOf
 * the line's session, started after the report (not the lost terminal's own, older outcome).
 * The one in the line's pane wins, else the newest.
 */
export function lineBinding(
  f: PaneForecast,
  reportAt: string,
  layout: Layout | null,
  bindings: Readonly<Record<string, Binding>>,
): Binding | undefined {
  if (!f.agent || !f.sessionId) return undefined;
  const since = time(reportAt);
  const found = Object.values(bindings).filter((b) => {
    if (!b.outcome || b.agentId !== f.agent || b.resumeOf !== f.sessionId || b.terminalId === f.terminalId) return false;
    const started = time(b.startedAt);
    return isNaN(since) || isNaN(started) || started >= since;
  });
  if (found.length === 0) return undefined;
  const inPane = layout ? findPane(layout, f.paneId)?.pane.terminalId : undefined;
  const here = found.find((b) => b.terminalId === inPane);
  if (here) return here;
  return found.sort((a, b) => (time(b.startedAt) || 0) - (time(a.startedAt) || 0))[0];
}

/** "Tab 2" for a tab's only pane, "Tab 1 · pane 2 of 3" in a split, "pane closed" once it is gone. */
export function paneWhere(layout: Layout | null, paneId: string): { tabNumber: number; where: string } {
  const loc = layout ? findPane(layout, paneId) : undefined;
  if (!loc || !layout) return { tabNumber: 0, where: 'pane closed' };
  const tabNumber = layout.tabs.findIndex((t) => t.id === loc.tab.id) + 1;
  const panes = panesInOrder(loc.tab.root);
  const where = panes.length > 1 ? `Tab ${tabNumber} · pane ${panes.findIndex((p) => p.id === paneId) + 1} of ${panes.length}` : `Tab ${tabNumber}`;
  return { tabNumber, where };
}

/** titleOf: a pane's title as its header shows it (the page's memory of pane titles). */
export function restoreModel(
  report: RestoreReport,
  layout: Layout | null,
  bindings: Readonly<Record<string, Binding>>,
  titleOf: (paneId: string) => string | undefined = () => undefined,
): RestoreModel {
  const lines = (report.panes ?? []).map((f): RestoreLine => {
    const { tabNumber, where } = paneWhere(layout, f.paneId);
    return {
      paneId: f.paneId,
      tabId: f.tabId,
      tabNumber,
      where,
      paneTitle: tabNumber > 0 ? (titleOf(f.paneId) ?? '') : '',
      host: f.host ?? '',
      action: f.action,
      actionLabel: actionLabel(f.action),
      agentLabel: f.agentLabel || f.agent || 'Shell',
      sessionId: f.sessionId ?? '',
      reason: f.reason,
      argv: f.action === 'resume' && f.argv && f.argv.length > 0 ? joinWords(f.argv) : null,
      outcome: outcomeNotice(lineBinding(f, report.at, layout, bindings)),
    };
  });
  return { at: report.at, title: restoreTitle(report), lines };
}

/** Dismissed summaries (by report time), kept across reloads in localStorage; the newest few only. */
export class RestoreDismissals extends Dismissals {
  static readonly KEEP = 20;

  constructor(storage: Pick<Storage, 'getItem' | 'setItem'> | null, key = 'reprise.dismissedRestore') {
    super(storage, key, RestoreDismissals.KEEP);
  }
}
