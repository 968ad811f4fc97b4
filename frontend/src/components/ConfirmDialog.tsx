import { useEffect, useRef } from 'react';
import { useServices } from '../context';
import { useStore } from '../store';

/** The in-app confirm (window.confirm would block the page and look foreign). */
export function ConfirmDialog() {
  const { store, actions, views } = useServices();
  const req = useStore(store, (s) => s.confirm);
  const ok = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!req) return;
    // Back to where the keyboard was (a terminal, or a field in Settings) when the dialog goes.
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    ok.current?.focus();
    return () => {
      if (before && before !== document.body && before.isConnected) {
        before.focus();
        return;
      }
      if (store.get().view !== 'terminals') {
        document.querySelector<HTMLElement>('.workspace-view')?.focus();
        return;
      }
      const id = actions.focusedPaneId();
      if (id) views.get(id)?.focus();
    };
  }, [req, actions, views, store]);

  if (!req) return null;
  return (
    <div className="modal-backdrop" onPointerDown={(e) => e.target === e.currentTarget && req.resolve(false)}>
      <div
        className="modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="confirm-title"
        aria-describedby="confirm-message"
        data-testid="confirm-dialog"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            req.resolve(false);
          } else if (e.key === 'Tab') {
            // Keep focus inside the dialog.
            const buttons = [...e.currentTarget.querySelectorAll('button')];
            const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
            const next = buttons[(i + (e.shiftKey ? buttons.length - 1 : 1)) % buttons.length];
            e.preventDefault();
            next?.focus();
          }
        }}
      >
        <h2 id="confirm-title" className="modal-title">
          {req.title ?? 'Close?'}
        </h2>
        <p id="confirm-message">{req.message}</p>
        <div className="modal-buttons">
          <button className="button" data-testid="confirm-cancel" onClick={() => req.resolve(false)}>
            Cancel
          </button>
          <button className="button danger" data-testid="confirm-ok" ref={ok} onClick={() => req.resolve(true)}>
            {req.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
