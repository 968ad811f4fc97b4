import { useEffect, useRef, useState } from 'react';
import { useServices } from '../context';
import { SHORTCUTS } from '../keys';

export function HelpButton() {
  const { actions } = useServices();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (e instanceof KeyboardEvent) {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        setOpen(false);
        actions.refocus();
      } else if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('pointerdown', close);
    window.addEventListener('keydown', close);
    return () => {
      window.removeEventListener('pointerdown', close);
      window.removeEventListener('keydown', close);
    };
  }, [open, actions]);
  return (
    <div className="help" ref={ref}>
      <button
        className="icon-button help-button"
        aria-label="Keyboard shortcuts"
        aria-expanded={open}
        aria-controls="shortcut-help"
        title="Keyboard shortcuts"
        onClick={() => setOpen((o) => !o)}
      >
        ?
      </button>
      {open && (
        <div className="help-popover" id="shortcut-help" role="dialog" aria-label="Keyboard shortcuts">
          <table>
            <tbody>
              {SHORTCUTS.map((s) => (
                <tr key={s.keys}>
                  <td>
                    <kbd>{s.keys}</kbd>
                  </td>
                  <td>{s.what}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="help-note">Click a pane to focus it. Drag a divider to resize.</p>
        </div>
      )}
    </div>
  );
}
