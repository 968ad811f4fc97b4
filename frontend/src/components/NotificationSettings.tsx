import { useEffect, useState } from 'react';
import { errorText } from '../actions';
import type { NotifyWhen } from '../attention/attention';
import { browserPermission, requestBrowserPermission } from '../attention/controller';
import { useServices } from '../context';
import { useStore } from '../store';

const WHEN_OPTIONS: { value: NotifyWhen; label: string }[] = [
  { value: 'off', label: 'Off' },
  { value: 'needs-input', label: 'When an agent needs input' },
  { value: 'needs-input-and-finished', label: 'When an agent needs input or finishes a turn' },
];

/** Settings → Notifications: when agents (and programs, OSC 9/777/99) notify, a sound, and the browser's permission. */
export function NotificationSettings() {
  const { store, actions } = useServices();
  const prefs = useStore(store, (s) => s.notify);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [perm, setPerm] = useState(() => browserPermission());

  useEffect(() => {
    if (!saved) return;
    const t = setTimeout(() => setSaved(false), 2500);
    return () => clearTimeout(t);
  }, [saved]);

  const save = async (next: { when: NotifyWhen; sound: boolean }, key: 'notify.when' | 'notify.sound', value: string) => {
    const before = store.get().notify;
    store.set('notify', next);
    setSaved(false);
    try {
      await actions.setSetting(key, value);
      setError(null);
      setSaved(true);
    } catch (err) {
      store.set('notify', before);
      setError(errorText(err));
    }
  };

  return (
    <div className="settings-scroll" data-testid="notification-settings">
      <h2 className="settings-section-title">Notifications</h2>
      <fieldset className="setting" data-testid="notify-when">
        <legend className="visually-hidden">Notify me</legend>
        <div className="setting-row">
          <div className="setting-text">
            <div className="setting-title" aria-hidden="true">
              Notify me
            </div>
            <div className="field-hint">
              A desktop notification when an agent in a pane you are not looking at (another tab, the window in the background) needs you — once per turn.
              Programs can notify too (OSC 9, 777, 99).
            </div>
          </div>
          <div className="setting-choices">
            {WHEN_OPTIONS.map((o) => (
              <label key={o.value} className="radio-row">
                <input
                  type="radio"
                  name="notify.when"
                  value={o.value}
                  data-testid={`notify-when-${o.value}`}
                  checked={prefs.when === o.value}
                  onChange={() => void save({ ...prefs, when: o.value }, 'notify.when', o.value)}
                />
                <span>{o.label}</span>
              </label>
            ))}
          </div>
        </div>
      </fieldset>
      <div className="setting">
        <div className="setting-row">
          <div className="setting-text">
            <label className="check-row setting-title">
              <input
                type="checkbox"
                data-testid="notify-sound"
                checked={prefs.sound}
                onChange={(e) => void save({ ...prefs, sound: e.target.checked }, 'notify.sound', e.target.checked ? 'true' : 'false')}
              />
              <span>Play a sound with a notification</span>
            </label>
          </div>
          <span className={'pill saved-pill' + (saved ? ' shown' : '')} role="status" aria-live="polite" data-testid="notify-status">
            {saved ? 'Saved' : ''}
          </span>
        </div>
      </div>
      {perm !== null && (
        <div className="setting" data-testid="notify-permission">
          <div className="setting-row">
            <div className="setting-text">
              <div className="setting-title">Browser permission</div>
              <div className="field-hint" data-testid="notify-permission-state">
                {perm === 'granted'
                  ? 'This browser shows Reprise’s notifications.'
                  : perm === 'denied'
                    ? 'This browser blocks Reprise’s notifications: allow them in the site settings of the address bar.'
                    : 'The browser asks once before it shows notifications.'}
              </div>
            </div>
            {perm === 'default' && (
              <button
                className="button"
                data-testid="notify-allow"
                onClick={() => {
                  requestBrowserPermission().then(
                    (p) => setPerm(p),
                    (err: unknown) => setError(errorText(err)),
                  );
                }}
              >
                Allow notifications
              </button>
            )}
          </div>
        </div>
      )}
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
