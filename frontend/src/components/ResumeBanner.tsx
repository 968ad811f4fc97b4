import { bannerView, dismissKey, paneBinding } from '../agents/banner';
import { useServices } from '../context';
import { useStore, type AppState } from '../store';
import { CloseIcon } from './icons';

/** Whether the pane showing terminalId has a resume banner up (it hides the outcome notice). */
export function bannerShown(s: AppState, terminalId: string): boolean {
  const b = paneBinding(terminalId, s.terminals, s.bindings);
  if (!b) return false;
  return bannerView(b, s.resumes[b.terminalId], s.dismissed[dismissKey(b)] === true).kind !== 'none';
}

/** A bar at the top of a pane whose agent was interrupted: Resume, Retry, or why it can't. */
export function ResumeBanner({ terminalId }: { terminalId: string }) {
  const { store, actions } = useServices();
  const binding = useStore(store, (s) => paneBinding(terminalId, s.terminals, s.bindings));
  const resume = useStore(store, (s) => (binding ? s.resumes[binding.terminalId] : undefined));
  const dismissed = useStore(store, (s) => (binding ? s.dismissed[dismissKey(binding)] === true : false));
  const view = bannerView(binding, resume, dismissed);
  if (view.kind === 'none' || !binding) return null;

  let text: string;
  let detail: string | null = null;
  switch (view.kind) {
    case 'candidate':
      text = `${view.label} was interrupted`;
      break;
    case 'resuming':
      text = `Resuming ${view.label}…`;
      break;
    case 'failed':
      text = `Couldn't resume ${view.label}: ${view.reason}`;
      break;
    case 'unavailable':
      text = `${view.label} was interrupted`;
      detail = view.reason;
      break;
  }
  const resuming = view.kind === 'resuming';
  const recreate = view.kind === 'unavailable' || view.kind === 'failed' ? view.recreate : undefined;
  const where = [binding.sessionId && `session ${binding.sessionId}`, binding.cwd].filter(Boolean).join(' · ');

  return (
    <div
      className={'resume-banner banner-' + view.kind}
      data-testid="resume-banner"
      data-kind={view.kind}
      data-terminal-id={binding.terminalId}
      role="region"
      aria-label={`${view.label} session`}
      title={where || undefined}
    >
      <span className="banner-dot" aria-hidden="true" />
      <span className="banner-message">
        <span className="banner-text" role="status" aria-live="polite" data-testid="resume-banner-text">
          {text}
        </span>
        {detail && (
          <span className="banner-detail" data-testid="resume-unavailable">
            {detail}
          </span>
        )}
      </span>
      <span className="banner-actions">
        {(view.kind === 'candidate' || resuming) && (
          <button
            className="button primary small"
            data-testid="resume-button"
            disabled={resuming}
            aria-disabled={resuming}
            title={`Resume ${view.label} in this pane`}
            onClick={() => void actions.resume(binding)}
          >
            Resume
          </button>
        )}
        {view.kind === 'unavailable' && recreate && (
          <button
            className="button primary small"
            data-testid="recreate-resume-button"
            title={`Create the empty folder ${recreate} again and resume ${view.label} there (the conversation comes back, the files don't)`}
            onClick={() => void actions.resume(binding, { recreateCwd: true })}
          >
            Recreate folder and resume
          </button>
        )}
        {view.kind === 'failed' && (
          <button
            className="button primary small"
            data-testid="retry-button"
            onClick={() => void actions.resume(binding, recreate ? { recreateCwd: true } : {})}
          >
            Retry
          </button>
        )}
        {!resuming && (
          <button
            className="icon-button"
            data-testid="dismiss-resume"
            aria-label="Dismiss resume prompt"
            title="Dismiss"
            onClick={() => actions.dismissResume(binding)}
          >
            <CloseIcon />
          </button>
        )}
      </span>
    </div>
  );
}
