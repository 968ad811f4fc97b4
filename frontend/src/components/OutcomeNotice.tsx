import { useEffect, useRef, useState } from 'react';
import { hideAt, launchNotice, LAUNCH_PENDING_MS, outcomeDismissKey, outcomeNotice } from '../agents/outcome';
import { useServices } from '../context';
import { useStore } from '../store';
import { CloseIcon } from './icons';

/**
 * A slim line at the top of a pane whose terminal runs a resume the host launched: "Resuming…"
 * until the agent confirms, then what it said (resumed, fresh, failed, or that nobody can tell).
 */
export function OutcomeNotice({ paneId, terminalId }: { paneId: string; terminalId: string }) {
  const { store, actions } = useServices();
  const binding = useStore(store, (s) => s.bindings[terminalId]);
  const launch = useStore(store, (s) => s.launches[paneId]);
  const dismissed = useStore(store, (s) => (binding ? s.dismissed[outcomeDismissKey(binding)] === true : false));
  // The host's outcome; else, for a resume this page asked for, "Resuming…" until it comes.
  const notice = outcomeNotice(binding) ?? launchNotice(launch, terminalId, binding, Date.now());
  // When the page first showed each outcome of this terminal (for the auto-hide).
  const seen = useRef(new Map<string, number>());
  const key = notice ? `${terminalId}/${notice.outcome}/${binding?.outcomeAt ?? ''}` : '';
  if (key && !seen.current.has(key)) seen.current.set(key, Date.now());
  const until = notice ? hideAt(notice, binding?.outcomeAt, seen.current.get(key) ?? Date.now()) : null;
  const [, tick] = useState(0);
  useEffect(() => {
    if (until === null) return;
    const ms = until - Date.now();
    if (ms <= 0) return;
    const t = setTimeout(() => tick((n) => n + 1), ms + 20);
    return () => clearTimeout(t);
  }, [until]);
  // The page's own "Resuming…" lapses if the host never says anything.
  const pendingUntil = notice && !outcomeNotice(binding) && launch ? launch.at + LAUNCH_PENDING_MS : null;
  useEffect(() => {
    if (pendingUntil === null) return;
    const t = setTimeout(() => tick((n) => n + 1), Math.max(0, pendingUntil - Date.now()) + 20);
    return () => clearTimeout(t);
  }, [pendingUntil]);

  if (!notice || dismissed || (until !== null && Date.now() >= until)) return null;
  return (
    <div
      className={'outcome-notice outcome-' + notice.outcome}
      data-testid="resume-outcome"
      data-outcome={notice.outcome}
      data-terminal-id={terminalId}
      role="status"
      aria-live="polite"
    >
      <span className="banner-dot" aria-hidden="true" />
      <span className="outcome-text" data-testid="resume-outcome-text" title={notice.text}>
        {notice.text}
      </span>
      {(notice.openSessions || notice.dismissible) && (
        <span className="banner-actions">
          {notice.openSessions && (
            <button
              className="button small"
              data-testid="outcome-open-sessions"
              title="Open Sessions to resume this conversation again"
              onClick={() => actions.openSessions(binding?.resumeOf || binding?.sessionId || '')}
            >
              Open Sessions
            </button>
          )}
          {notice.dismissible && binding && (
            <button
              className="icon-button small-icon"
              data-testid="dismiss-outcome"
              aria-label="Dismiss resume outcome"
              title="Dismiss"
              onClick={() => actions.dismissOutcome(binding)}
            >
              <CloseIcon />
            </button>
          )}
        </span>
      )}
    </div>
  );
}
