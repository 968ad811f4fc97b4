import { useServices } from '../context';

/** The status bar's Agents button: opens the overview (Ctrl+Shift+A); says how many agents wait for you. */
export function AgentsButton({ count, waiting, open }: { count: number; waiting: number; open: boolean }) {
  const { actions } = useServices();
  const text = waiting > 0 ? `Agents · ${waiting} needs input` : count > 0 ? `Agents · ${count}` : 'Agents';
  return (
    <button
      className={'status-button' + (open ? ' active' : '') + (waiting > 0 ? ' attention' : '')}
      data-testid="open-overview"
      aria-pressed={open}
      aria-label={`Agents overview${waiting > 0 ? `, ${waiting} needs input` : ''}`}
      title="Agents overview (Ctrl+Shift+A)"
      onClick={() => actions.toggleOverview()}
    >
      {waiting > 0 && <span className="agent-dot attention-dot" aria-hidden="true" />}
      {text}
    </button>
  );
}
