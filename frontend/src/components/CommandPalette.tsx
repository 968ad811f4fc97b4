import { useEffect, useMemo, useRef, useState } from 'react';
import { useServices } from '../context';
import { filterCommands } from '../palette';
import { useStore } from '../store';

/** Ctrl+Shift+P: every action with its shortcut, filtered as you type; Enter runs, Esc closes. */
export function CommandPalette() {
  const { store } = useServices();
  const open = useStore(store, (s) => s.palette);
  return open ? <PaletteDialog /> : null;
}

function PaletteDialog() {
  const { actions } = useServices();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const rows = useMemo(() => filterCommands(query), [query]);
  const cur = Math.min(active, Math.max(0, rows.length - 1));

  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${cur}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cur]);

  const run = (i: number) => {
    const c = rows[i];
    if (!c) return;
    actions.closePalette(false);
    actions.runCommand(c.id);
  };

  return (
    <div className="palette-backdrop" onPointerDown={(e) => e.target === e.currentTarget && actions.closePalette(true)}>
      <div
        className="palette"
        role="dialog"
        aria-label="Command palette"
        data-testid="palette"
        // A click on a row or the list's padding would move the focus to the page (nothing there
        // takes it): typing and Esc would then reach nothing, so the field keeps the keyboard.
        onMouseDown={(e) => e.target !== input.current && e.preventDefault()}
      >
        <input
          ref={input}
          className="text-input palette-input"
          type="text"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={rows[cur] ? `palette-${rows[cur].id}` : undefined}
          aria-label="Type an action"
          placeholder="Type an action…"
          spellCheck={false}
          value={query}
          data-testid="palette-input"
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              const n = rows.length || 1;
              setActive((cur + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
            } else if (e.key === 'Enter') {
              e.preventDefault();
              run(cur);
            } else if (e.key === 'Escape') {
              e.preventDefault();
              actions.closePalette(true);
            }
          }}
        />
        <ul className="palette-list" id="palette-list" role="listbox" ref={list} aria-label="Actions">
          {rows.map((c, i) => (
            <li
              key={c.id}
              id={`palette-${c.id}`}
              role="option"
              aria-selected={i === cur}
              className={'palette-row' + (i === cur ? ' active' : '')}
              data-index={i}
              data-testid="palette-row"
              data-action={c.id}
              onPointerMove={() => i !== cur && setActive(i)}
              onClick={() => run(i)}
            >
              <span className="palette-title">{c.title}</span>
              {c.keys.length > 0 && <kbd className="palette-keys">{c.keys[0]}</kbd>}
            </li>
          ))}
          {rows.length === 0 && <li className="palette-empty muted">No action matches “{query}”</li>}
        </ul>
      </div>
    </div>
  );
}
