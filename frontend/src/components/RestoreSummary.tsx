import { useEffect, useRef, useState } from 'react';
import { shortTime } from '../agents/format';
import { restoreModel, restoreVisible, type RestoreLine } from '../agents/restore';
import { useServices } from '../context';
import { useStore } from '../store';
import { paneTitles } from '../terminal/titles';
import { CloseIcon } from './icons';

/**
 * The status bar's "After restart: 1 will resume · 2 fresh" after terminals were lost (a reboot
 * or a pty daemon death): a button opening the forecast pane by pane (what will come back and
 * why) with what did come back once the agents said so. Dismissed per report.
 */
export function RestoreSummary() {
  const { store, actions } = useServices();
  const report = useStore(store, (s) => s.restore);
  const dismissed = useStore(store, (s) => s.restoreDismissed);
  const layout = useStore(store, (s) => s.layout);
  const bindings = useStore(store, (s) => s.bindings);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const visible = restoreVisible(report, dismissed);

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    // Capture: Esc closes the panel, not a Settings or Sessions view under it.
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      actions.refocus();
    };
    window.addEventListener('pointerdown', onPointer);
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('pointerdown', onPointer);
      window.removeEventListener('keydown', onKey, true);
    };
  }, [open, actions]);

  useEffect(() => {
    if (!visible) setOpen(false);
  }, [visible]);

  if (!visible) return null;
  const model = restoreModel(report, layout, bindings, (id) => paneTitles.peek(id));
  const dismiss = () => {
    setOpen(false);
    actions.dismissRestore(report.at);
    actions.refocus();
  };

  return (
    <div className="restore" ref={ref} data-testid="restore" data-at={report.at}>
      <button
        ref={button}
        className="restore-summary"
        data-testid="restore-summary"
        aria-expanded={open}
        aria-controls="restore-panel"
        aria-haspopup="dialog"
        title="What each pane did after the restart, and why"
        onClick={() => setOpen((o) => !o)}
      >
        {model.title}
      </button>
      <button className="icon-button restore-dismiss" data-testid="restore-dismiss" aria-label="Dismiss the restore summary" title="Dismiss" onClick={dismiss}>
        <CloseIcon />
      </button>
      {open && (
        <div className="restore-panel" id="restore-panel" data-testid="restore-panel" role="dialog" aria-labelledby="restore-panel-title">
          <header className="restore-panel-header">
            <h2 id="restore-panel-title">After restart</h2>
            <span className="muted small" title={new Date(report.at).toLocaleString()}>
              {shortTime(report.at)}
            </span>
            <button className="icon-button" data-testid="restore-panel-close" aria-label="Close" title="Close (Esc)" onClick={() => (setOpen(false), actions.refocus())}>
              <CloseIcon />
            </button>
          </header>
          <p className="restore-panel-summary" data-testid="restore-panel-summary">
            {report.summary}
          </p>
          <ul className="restore-lines" aria-label="Panes">
            {model.lines.map((l) => (
              <RestoreLineItem
                key={l.paneId}
                line={l}
                onShow={() => {
                  setOpen(false);
                  actions.showPane(l.paneId);
                  actions.refocus();
                }}
              />
            ))}
            {model.lines.length === 0 && <li className="muted">No panes to restore.</li>}
          </ul>
          <div className="popover-buttons">
            <span className="muted small">Resumed means the agent itself confirmed it.</span>
            <button className="button small" data-testid="restore-panel-dismiss" onClick={dismiss}>
              Dismiss
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

function RestoreLineItem({ line: l, onShow }: { line: RestoreLine; onShow: () => void }) {
  return (
    <li className="restore-line" data-testid="restore-pane" data-pane-id={l.paneId} data-action={l.action} data-outcome={l.outcome?.outcome}>
      <div className="restore-line-head">
        <span className={'badge action-' + l.action} data-testid="restore-action">
          {l.actionLabel}
        </span>
        <span className="restore-agent" data-testid="restore-agent">
          {l.agentLabel}
        </span>
        {l.host && (
          <span className="pill pane-host" data-testid="restore-host" title={`running on ${l.host}; its line is that host's daemon's answer`}>
            {l.host}
          </span>
        )}
        {l.sessionId && (
          <code className="muted small" title={l.sessionId}>
            {l.sessionId.slice(0, 8)}
          </code>
        )}
        <span className="restore-where muted small" data-testid="restore-where" title={l.paneTitle ? `${l.where}: ${l.paneTitle}` : l.where}>
          {l.where}
          {l.paneTitle && <> · {l.paneTitle}</>}
        </span>
        {l.tabNumber > 0 && (
          <button
            className="link-button small restore-show"
            data-testid="restore-show-pane"
            aria-label={`Show this pane (tab ${l.tabNumber})`}
            title={`Show this pane (tab ${l.tabNumber})`}
            onClick={onShow}
          >
            Show
          </button>
        )}
      </div>
      <div className="restore-reason" data-testid="restore-reason">
        {l.reason}
      </div>
      {l.argv && (
        <code className="restore-argv" data-testid="restore-argv" title="The exact command of the resume">
          {l.argv}
        </code>
      )}
      {l.outcome && (
        <div className={'restore-outcome outcome-' + l.outcome.outcome} data-testid="restore-outcome" data-outcome={l.outcome.outcome}>
          {l.outcome.text}
        </div>
      )}
    </li>
  );
}
