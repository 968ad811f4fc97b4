import { useEffect, useRef } from 'react';
import type { Tab } from '../api';
import { useServices } from '../context';
import { useStore } from '../store';

/**
 * A tab's title, or its editor while it is being renamed (double-click on the tab, its menu, the
 * palette): Enter or leaving the field keeps the new title, Esc cancels, an empty title gives the
 * tab back its automatic one. The host keeps titles with the layout (layout.renameTab).
 */
export function TabTitle({ tab, shown }: { tab: Tab; shown: string }) {
  const { store, actions } = useServices();
  const editing = useStore(store, (s) => s.renamingTabId === tab.id);
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);

  useEffect(() => {
    if (!editing) return;
    done.current = false;
    input.current?.focus();
    input.current?.select();
  }, [editing]);

  if (!editing) {
    return (
      <span className="tab-title" data-testid="tab-title">
        {shown}
      </span>
    );
  }
  const finish = (title: string | null) => {
    if (done.current) return;
    done.current = true;
    // The editor starts with the automatic title: kept as it was, it is no new name (else the
    // tab would stop following its pane's directory and program).
    if (!tab.title && title !== null && title.trim() === shown) title = null;
    void actions.finishRename(tab.id, title);
  };
  return (
    <input
      ref={input}
      className="tab-title-input"
      data-testid="tab-rename"
      aria-label="Tab title (Enter keeps it, Esc cancels, empty for the automatic title)"
      defaultValue={tab.title || shown}
      maxLength={200}
      spellCheck={false}
      onPointerDown={(e) => e.stopPropagation()}
      onClick={(e) => e.stopPropagation()}
      onDoubleClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Enter') {
          e.preventDefault();
          finish(e.currentTarget.value);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          finish(null);
        }
      }}
      onBlur={(e) => finish(e.currentTarget.value)}
    />
  );
}
