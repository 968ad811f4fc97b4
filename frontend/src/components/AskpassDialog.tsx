import { useEffect, useRef } from 'react';
import { isConfirm } from '../askpass';
import { useServices } from '../context';
import { useStore } from '../store';

/**
 * ssh's question for a remote host (a key's passphrase, a password, an unknown host key): "HOST asks:"
 * and ssh's own words. A secret goes in a masked field and is sent once; the field is cleared right
 * after. A yes/no question (the host key's fingerprint) is Accept / Reject: host keys stay checked by
 * the user's ssh, this only passes the user's answer on. Escape or Cancel cancels: ssh fails with one line.
 */
export function AskpassDialog() {
  const { store, actions } = useServices();
  const prompt = useStore(store, (s) => s.askpass[0] ?? null);
  const input = useRef<HTMLInputElement>(null);
  const reject = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!prompt) return;
    if (isConfirm(prompt)) reject.current?.focus();
    else input.current?.focus();
    return () => actions.refocus();
  }, [prompt?.id, actions]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!prompt) return null;
  const confirm = isConfirm(prompt);
  const send = () => {
    const el = input.current;
    const secret = el?.value ?? '';
    if (el) el.value = '';
    void actions.answerAskpass(prompt.id, { secret });
  };
  const cancel = () => {
    if (input.current) input.current.value = '';
    void actions.answerAskpass(prompt.id, { cancel: true });
  };
  return (
    <div className="modal-backdrop">
      <div
        className="modal askpass"
        role="dialog"
        aria-modal="true"
        aria-labelledby="askpass-title"
        aria-describedby="askpass-prompt"
        data-testid="askpass-dialog"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            cancel();
          } else if (e.key === 'Tab') {
            const items = [...e.currentTarget.querySelectorAll<HTMLElement>('input, button')];
            const i = items.indexOf(document.activeElement as HTMLElement);
            const next = items[(i + (e.shiftKey ? items.length - 1 : 1)) % items.length];
            e.preventDefault();
            next?.focus();
          }
        }}
      >
        <h2 id="askpass-title" className="modal-title">
          <span className="askpass-host">{prompt.host}</span> asks:
        </h2>
        <pre id="askpass-prompt" className="askpass-prompt" data-testid="askpass-prompt">
          {prompt.prompt}
        </pre>
        {confirm ? (
          <>
            <p className="field-hint">Accept only if this is the key you expect for {prompt.host}.</p>
            <div className="modal-buttons">
              <button className="button" data-testid="askpass-reject" ref={reject} onClick={() => void actions.answerAskpass(prompt.id, { accept: false })}>
                Reject
              </button>
              <button className="button primary" data-testid="askpass-accept" onClick={() => void actions.answerAskpass(prompt.id, { accept: true })}>
                Accept
              </button>
            </div>
          </>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              send();
            }}
          >
            <input
              ref={input}
              className="text-input"
              type="password"
              autoComplete="off"
              spellCheck={false}
              aria-label={prompt.prompt}
              data-testid="askpass-input"
            />
            <p className="field-hint">Sent to ssh once; Reprise does not keep it.</p>
            <div className="modal-buttons">
              <button type="button" className="button" data-testid="askpass-cancel" onClick={cancel}>
                Cancel
              </button>
              <button type="submit" className="button primary" data-testid="askpass-ok">
                OK
              </button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}
