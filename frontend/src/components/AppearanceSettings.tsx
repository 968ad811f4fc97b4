import { useEffect, useId, useState, type ReactNode } from 'react';
import { useServices } from '../context';
import { keyLabel } from '../keys';
import { useStore } from '../store';
import { DEFAULT_APPEARANCE, fontFamilyError, LIMITS, THEMES, zoomedFontSize, type Appearance, type CursorStyle, type RendererPref, type ThemeId } from '../terminal/appearance';

const FONTS = ['JetBrains Mono', 'Cascadia Mono', 'Fira Code', 'DejaVu Sans Mono', 'Liberation Mono', 'Noto Sans Mono', 'Ubuntu Mono', 'Source Code Pro', 'monospace'];

/** Settings → Appearance: applied to every open pane as it changes, kept in this window's storage. */
export function AppearanceSettings() {
  const { store, actions } = useServices();
  const a = useStore(store, (s) => s.appearance);
  const zoom = useStore(store, (s) => s.zoom);
  const set = (patch: Partial<Appearance>) => actions.setAppearance({ ...store.get().appearance, ...patch });

  return (
    <div className="settings-scroll" data-testid="appearance-settings">
      <h2 className="settings-section-title">Appearance</h2>
      <p className="field-hint">Changes apply to every pane at once and are kept for this window.</p>
      <Row label="Theme" hint="System follows the desktop's light or dark setting.">
        {(id) => (
          <select id={id} className="text-input" data-testid="appearance-theme" value={a.theme} onChange={(e) => set({ theme: e.target.value as ThemeId })}>
            {THEMES.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      </Row>
      <Row label="Font family" hint="A CSS font list; the first installed one is used.">
        {(id) => <FontField id={id} value={a.fontFamily} onCommit={(fontFamily) => set({ fontFamily: fontFamily || DEFAULT_APPEARANCE.fontFamily })} />}
      </Row>
      <Row
        label="Font size"
        hint={`Zoom (${keyLabel('zoomIn')} / ${keyLabel('zoomOut')} / ${keyLabel('zoomReset')}) adds ${zoom >= 0 ? '+' : ''}${zoom}: panes use ${zoomedFontSize(a, zoom)} px.`}
      >
        {(id) => (
          <span className="inline-fields">
            <NumberField id={id} testId="appearance-font-size" value={a.fontSize} step={0.5} {...LIMITS.fontSize} onCommit={(fontSize) => set({ fontSize })} unit="px" />
            {zoom !== 0 && (
              <button className="button" data-testid="appearance-zoom-reset" onClick={() => actions.setZoom(0)}>
                Reset zoom
              </button>
            )}
          </span>
        )}
      </Row>
      <Row label="Line height" hint="Space between lines, as a multiple of the font size.">
        {(id) => <NumberField id={id} testId="appearance-line-height" value={a.lineHeight} step={0.05} {...LIMITS.lineHeight} onCommit={(lineHeight) => set({ lineHeight })} />}
      </Row>
      <Row label="Cursor">
        {(id) => (
          <span className="inline-fields">
            <select id={id} className="text-input" data-testid="appearance-cursor-style" value={a.cursorStyle} onChange={(e) => set({ cursorStyle: e.target.value as CursorStyle })}>
              <option value="block">Block</option>
              <option value="bar">Bar</option>
              <option value="underline">Underline</option>
            </select>
            <label className="check-row">
              <input type="checkbox" data-testid="appearance-cursor-blink" checked={a.cursorBlink} onChange={(e) => set({ cursorBlink: e.target.checked })} />
              <span>Blink</span>
            </label>
          </span>
        )}
      </Row>
      <Row label="Scrollback" hint="Lines each pane keeps above the screen (on screen; the saved output on disk is separate).">
        {(id) => <NumberField id={id} testId="appearance-scrollback" value={a.scrollback} step={1000} {...LIMITS.scrollback} onCommit={(scrollback) => set({ scrollback })} unit="lines" />}
      </Row>
      <Row label="Renderer" hint="Auto uses WebGL on a real GPU and the DOM renderer on a software one (a VM, a remote desktop), where WebGL is slower, and in a window that does not name its GPU (WebKitGTK).">
        {(id) => (
          <select id={id} className="text-input" data-testid="appearance-renderer" value={a.renderer} onChange={(e) => set({ renderer: e.target.value as RendererPref })}>
            <option value="auto">Auto</option>
            <option value="webgl">WebGL</option>
            <option value="dom">DOM</option>
          </select>
        )}
      </Row>
      <div className="setting">
        <button className="button" data-testid="appearance-defaults" onClick={() => (actions.setAppearance(DEFAULT_APPEARANCE), actions.setZoom(0))}>
          Restore defaults
        </button>
      </div>
    </div>
  );
}

function Row({ label, hint, children }: { label: string; hint?: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="setting">
      <div className="setting-row">
        <div className="setting-text">
          <label className="setting-title" htmlFor={id}>
            {label}
          </label>
          {hint && <div className="field-hint">{hint}</div>}
        </div>
        <div className="setting-choices">{children(id)}</div>
      </div>
    </div>
  );
}

function FontField({ id, value, onCommit }: { id: string; value: string; onCommit: (v: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  // A list the appearance would not take is refused here, with why (it fell back to the default without a word).
  const error = fontFamilyError(text);
  const commit = () => !error && onCommit(text.trim());
  return (
    <>
      <input
        id={id}
        className="text-input font-input"
        data-testid="appearance-font-family"
        list={`${id}-fonts`}
        spellCheck={false}
        value={text}
        aria-invalid={error ? true : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => text !== value && commit()}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
      />
      {error && (
        <span className="field-error" role="alert" data-testid="appearance-font-family-error">
          {error}
        </span>
      )}
      <datalist id={`${id}-fonts`}>
        {FONTS.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
    </>
  );
}

/** A number applied as soon as it is a valid one within [min, max]; out-of-range text says so. */
function NumberField(p: { id: string; testId: string; value: number; min: number; max: number; step: number; unit?: string; onCommit: (v: number) => void }) {
  const [text, setText] = useState(String(p.value));
  useEffect(() => setText(String(p.value)), [p.value]);
  const n = Number(text);
  const ok = text.trim() !== '' && Number.isFinite(n) && n >= p.min && n <= p.max;
  return (
    <span className="number-field">
      <input
        id={p.id}
        className="text-input number-input"
        data-testid={p.testId}
        type="number"
        min={p.min}
        max={p.max}
        step={p.step}
        value={text}
        aria-invalid={ok ? undefined : true}
        onChange={(e) => {
          setText(e.target.value);
          const v = Number(e.target.value);
          if (e.target.value.trim() !== '' && Number.isFinite(v) && v >= p.min && v <= p.max) p.onCommit(v);
        }}
        onBlur={() => setText(String(p.value))}
      />
      {p.unit && <span className="muted">{p.unit}</span>}
      {!ok && (
        <span className="field-error" role="alert">
          {p.min}–{p.max}
        </span>
      )}
    </span>
  );
}
