import { useEffect, useRef } from 'react';
import { useServices } from '../context';
import { useStore } from '../store';

function typesInto(el: HTMLElement): boolean {
  return el.tagName === 'TEXTAREA' || el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.isContentEditable;
}

/** The in-app confirm (window.confirm would block the page and look foreign). */
export function ConfirmDialog() {
  const { store, actions } = useServices();
  const req = useStore(store, (s) => s.confirm);
  const ok = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!req) return;
    // Back to where the keyboard was when the dialog goes, if that was a place to type in (a
    // terminal, a field in Settings); from a button (a tab's ×) to the terminal or the view.
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    ok.current?.focus();
    return () => {
      if (before && before.isConnected && typesInto(before)) {
        before.focus();
        return;
      }
      actions.refocus();
    };
  }, [req, actions]);

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
