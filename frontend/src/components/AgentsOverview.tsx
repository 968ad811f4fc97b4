import { useEffect, useRef } from 'react';
import { agentPill, urgency, type AgentInfo } from '../attention/attention';
import { useServices } from '../context';
import { keyLabel } from '../keys';
import { findPaneByTerminal } from '../layout/layout';
import { useStore } from '../store';
import { AgentPill, useNow } from './AgentPill';
import { CloseIcon } from './icons';

/** "just now", "4 min ago", "2 h ago", or the date. */
export function ago(iso: string | undefined, now: number): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

interface Row {
  info: AgentInfo;
  paneId?: string;
  tabIndex?: number;
}

/** The Agents overview: every agent across tabs, the most urgent first; Enter or a click brings its pane in front. */
export function AgentsOverview() {
  const { store, actions } = useServices();
  const states = useStore(store, (s) => s.agentStates);
  const layout = useStore(store, (s) => s.layout);
  const now = useNow(true);
  const listRef = useRef<HTMLUListElement>(null);

  const rows: Row[] = Object.values(states).map((info) => {
    const loc = layout ? findPaneByTerminal(layout, info.terminalId) : undefined;
    return { info, paneId: loc?.pane.id, tabIndex: loc ? layout?.tabs.findIndex((t) => t.id === loc.tab.id) : undefined };
  });
  rows.sort((a, b) => urgency(b.info.state) - urgency(a.info.state) || (a.tabIndex ?? 99) - (b.tabIndex ?? 99));

  useEffect(() => {
    // The keyboard lands on the first agent (or the close button when there is none).
    const first = listRef.current?.querySelector<HTMLElement>('button.overview-row') ?? document.querySelector<HTMLElement>('[data-testid=overview-close]');
    first?.focus();
  }, []);

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      actions.toggleOverview(false);
      return;
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    const items = [...(listRef.current?.querySelectorAll<HTMLElement>('button.overview-row') ?? [])];
    if (items.length === 0) return;
    e.preventDefault();
    const i = items.indexOf(document.activeElement as HTMLElement);
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? items.length - 1 : (i + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <aside className="overview" role="dialog" aria-label="Agents overview" data-testid="agents-overview" onKeyDown={onKey}>
      <header className="overview-header">
        <h2>Agents</h2>
        <span className="muted">{rows.length === 0 ? 'none running' : `${rows.length}`}</span>
        <span className="tabbar-spacer" />
        <button className="icon-button" data-testid="overview-close" aria-label="Close the Agents overview" title="Close (Esc)" onClick={() => actions.toggleOverview(false)}>
          <CloseIcon />
        </button>
      </header>
      {rows.length === 0 ? (
        <p className="overview-empty muted" data-testid="overview-empty">
          No agent in any pane. Start one with New agent in the tab bar ({keyLabel('newAgent')}).
        </p>
      ) : (
        <ul className="overview-list" ref={listRef}>
          {rows.map(({ info, paneId, tabIndex }) => {
            const pill = agentPill(info, now);
            return (
              <li key={info.terminalId}>
                <button
                  className="overview-row"
                  data-testid="overview-row"
                  data-terminal-id={info.terminalId}
                  data-pane-id={paneId}
                  disabled={!paneId}
                  aria-label={`${info.agentLabel}: ${pill?.label ?? info.state}${tabIndex !== undefined ? `, tab ${tabIndex + 1}` : ''}${info.cwd ? `, in ${info.cwd}` : ''}`}
                  onClick={() => paneId && actions.revealPane(paneId)}
                >
                  <span className="overview-line">
                    <span className="overview-label">{info.agentLabel || info.agentId}</span>
                    <AgentPill info={info} />
                    {tabIndex !== undefined && tabIndex >= 0 && <span className="muted overview-tab">tab {tabIndex + 1}</span>}
                  </span>
                  <span className="overview-line muted">
                    <span className="overview-cwd" title={info.cwd}>
                      {info.cwd || '—'}
                    </span>
                    <span className="overview-when">{ago(info.lastEventAt || info.since, now)}</span>
                  </span>
                  {info.firstPrompt && <span className="overview-prompt">“{info.firstPrompt}”</span>}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </aside>
  );
}
