import type { DaemonStatus } from '../api';
import { useServices } from '../context';
import { AgentsButton } from './AgentsButton';
import { useStore } from '../store';
import { RestoreSummary } from './RestoreSummary';

const LABELS = {
  connecting: 'Connecting…',
  open: 'Connected',
  reconnecting: 'Reconnecting…',
  closed: 'Disconnected',
} as const;

function daemonText(d: DaemonStatus | null): string | null {
  if (!d || d.state === 'up') return null;
  if (d.state === 'restarting') return 'Terminal daemon restarting…';
  if (d.state === 'failed') return `Terminal daemon failed${d.message ? `: ${d.message}` : ''}`;
  return `Terminal daemon ${d.state}${d.message ? `: ${d.message}` : ''}`;
}

export function StatusBar() {
  const { store } = useServices();
  const conn = useStore(store, (s) => s.conn);
  const notice = useStore(store, (s) => s.notice);
  const daemon = useStore(store, (s) => daemonText(s.daemon));
  const agents = useStore(store, (s) => Object.keys(s.agentStates).length);
  const waiting = useStore(store, (s) => Object.values(s.agentStates).filter((a) => a.state === 'needs-input').length);
  const overview = useStore(store, (s) => s.overview);
  return (
    <footer className="statusbar">
      <div role="status" aria-live="polite" data-testid="status" className={'status conn-' + conn}>
        <span className="status-dot" aria-hidden="true" />
        <span className="status-text">{LABELS[conn]}</span>
        {conn === 'open' && daemon && <span className="status-notice">{daemon}</span>}
        {notice && <span className="status-notice">{notice}</span>}
      </div>
      <RestoreSummary />
      <AgentsButton count={agents} waiting={waiting} open={overview} />
    </footer>
  );
}
