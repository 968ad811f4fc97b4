import { useEffect, useState } from 'react';
import { agentPill, type AgentInfo } from '../attention/attention';

/** Re-renders every period ms while on (a working turn's "no activity for N min" moves with the clock). */
export function useNow(on: boolean, periodMs = 30000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), periodMs);
    return () => clearInterval(t);
  }, [on, periodMs]);
  return on ? now : Date.now();
}

/** A pane header's agent state pill (aria-live: a screen reader hears "needs input"). */
export function AgentPill({ info }: { info: AgentInfo }) {
  const now = useNow(info.state === 'working');
  const pill = agentPill(info, now);
  if (!pill) return null;
  return (
    <span
      className={'pill agent-pill agent-' + pill.state + (pill.stale ? ' stale' : '')}
      data-testid="agent-state"
      data-agent-state={pill.stale ? 'stale' : pill.state}
      title={pill.detail}
      role="status"
      aria-live="polite"
    >
      <span className="agent-dot" aria-hidden="true" />
      {pill.label}
    </span>
  );
}
