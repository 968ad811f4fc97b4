import { useEffect } from 'react';
import { useServices } from '../context';
import { shortcutFor } from '../keys';
import { focusedPane } from '../layout/layout';
import { useStore } from '../store';
import { CommandPalette } from './CommandPalette';
import { AskpassDialog } from './AskpassDialog';
import { ConfirmDialog } from './ConfirmDialog';
import { ContextMenu } from './ContextMenu';
import { LazyAgentsOverview, LazySessionsView, LazySettingsView } from './lazyViews';
import { SplitView } from './SplitView';
import { StatusBar } from './StatusBar';
import { TabBar } from './TabBar';
import { pageHasToken } from '../transport/endpoint';

export function App() {
  const { store, actions } = useServices();
  const layout = useStore(store, (s) => s.layout);
  const conn = useStore(store, (s) => s.conn);
  const view = useStore(store, (s) => s.view);
  const overview = useStore(store, (s) => s.overview);

  // Shortcuts when the keyboard is not in a terminal (tab bar, buttons, body).
  // Inside a terminal, xterm's custom key handler takes them first.
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (ev.defaultPrevented || store.get().confirm || store.get().askpass.length > 0 || store.get().palette || store.get().menu) return;
      const target = ev.target as HTMLElement | null;
      if (target?.closest('.xterm')) return;
      if (ev.key === 'Escape' && store.get().overview) {
        ev.preventDefault();
        actions.toggleOverview(false);
        return;
      }
      if (ev.key === 'Escape' && store.get().view !== 'terminals') {
        ev.preventDefault();
        actions.showTerminals();
        return;
      }
      const s = shortcutFor(ev);
      if (!s) return;
      const editable = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA');
      if (editable && (s === 'copy' || s === 'paste')) return;
      ev.preventDefault();
      actions.shortcut(s);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, actions]);

  return (
    <div className="app">
      <TabBar />
      <main className="workspace">
        {layout ? (
          layout.tabs.map((tab) => {
            const active = tab.id === layout.activeTabId;
            return (
              <div key={tab.id} className="tab-panel" role="tabpanel" hidden={!active} data-tab-id={tab.id}>
                <SplitView node={tab.root} tabActive={active} focusedPaneId={focusedPane(tab)?.id ?? ''} />
              </div>
            );
          })
        ) : (
          <div className="splash">
            {conn === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}
            {!pageHasToken() && (
              <p role="alert" data-testid="no-token">
                This page has no token: open the address <code>reprise serve</code> printed (a new one every launch).
              </p>
            )}
          </div>
        )}
        {view === 'settings' && <LazySettingsView />}
        {view === 'sessions' && <LazySessionsView />}
        {overview && <LazyAgentsOverview />}
      </main>
      <StatusBar />
      <ConfirmDialog />
      <AskpassDialog />
      <CommandPalette />
      <ContextMenu />
    </div>
  );
}
