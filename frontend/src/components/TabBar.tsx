import { useState } from 'react';
import { liveAgentLabel } from '../agents/banner';
import type { Tab } from '../api';
import { useServices } from '../context';
import { tabBadge } from '../attention/attention';
import { focusedPane, panesInOrder } from '../layout/layout';
import { tooltip } from '../keys';
import { useStore } from '../store';
import { paneTitle } from '../terminal/describe';
import { paneTitles } from '../terminal/titles';
import { HelpButton } from './HelpButton';
import { CloseIcon, GearIcon, HistoryIcon, PlusIcon } from './icons';
import { NewAgentMenu } from './NewAgentMenu';
import { tabMenu } from '../menus';
import { TabTitle } from './TabTitle';
import { tabHostLabel } from '../hosts';
import { useTabDrag } from './useTabDrag';
import { TabStrip } from './TabStrip';

export function TabBar() {
  const { store, actions } = useServices();
  const layout = useStore(store, (s) => s.layout);
  const view = useStore(store, (s) => s.view);
  if (!layout) return <div className="tabbar" />;
  return (
    <div className="tabbar">
      <TabStrip activeId={layout.activeTabId} count={layout.tabs.length}>
        {layout.tabs.map((tab, i) => (
          <TabButton key={tab.id} tab={tab} index={i} active={tab.id === layout.activeTabId} />
        ))}
      </TabStrip>
      <button
        className="icon-button new-tab"
        data-testid="new-tab"
        aria-label="New tab"
        title={tooltip('newTab') + ' — right-click: New tab on host…'}
        onClick={() => actions.newTab()}
        onContextMenu={(e) => {
          // Right-click on "+": "New tab on host…" (also in the palette).
          e.preventDefault();
          void actions.openHostMenu(e.clientX, e.clientY);
        }}
      >
        <PlusIcon />
      </button>
      <NewAgentMenu />
      <div className="tabbar-spacer" />
      <button
        className={'icon-button tabbar-button' + (view === 'sessions' ? ' active' : '')}
        data-testid="open-sessions"
        aria-label="Agent sessions"
        aria-pressed={view === 'sessions'}
        title={tooltip('sessions')}
        onClick={() => actions.toggleView('sessions')}
      >
        <HistoryIcon />
      </button>
      <button
        className={'icon-button tabbar-button' + (view === 'settings' ? ' active' : '')}
        data-testid="open-settings"
        aria-label="Settings"
        aria-pressed={view === 'settings'}
        title={tooltip('settings')}
        onClick={() => actions.toggleView('settings')}
      >
        <GearIcon />
      </button>
      <HelpButton />
    </div>
  );
}

function TabButton({ tab, index, active }: { tab: Tab; index: number; active: boolean }) {
  const { store, actions } = useServices();
  const pane = focusedPane(tab);
  const terminal = useStore(store, (s) => (pane ? s.terminals[pane.terminalId] : undefined));
  const osc = useStore(store, (s) => (pane ? s.titles[pane.terminalId] : undefined));
  const cwd = useStore(store, (s) => (pane ? s.cwds[pane.terminalId] : undefined));
  const agent = useStore(store, (s) => (pane ? liveAgentLabel(s.bindings[pane.terminalId]) : undefined));
  // A string, so the selector's result compares equal while nothing changed.
  const badgeKey = useStore(store, (s) => {
    const panes = panesInOrder(tab.root);
    const b = tabBadge(
      panes.map((p) => s.agentStates[p.terminalId]?.state),
      panes.some((p) => s.bells[p.id]),
    );
    return b ? `${b.kind}|${b.label}` : '';
  });
  const [badgeKind, badgeLabel] = badgeKey ? badgeKey.split('|') : ['', ''];
  // Which remote hosts the tab's panes run on (a string, so it compares equal while nothing changed).
  const hostLabel = useStore(store, (s) => tabHostLabel(panesInOrder(tab.root).map((p) => s.terminals[p.terminalId])));
  const [hover, setHover] = useState(false);
  const drag = useTabDrag(actions, tab.id);
  const title = tab.title || (pane ? paneTitles.title(pane.id, terminal, osc, agent, cwd) : paneTitle(terminal, osc));
  return (
    <div
      className={'tab' + (active ? ' active' : '') + (drag.dragging ? ' dragging' : '')}
      data-testid="tab"
      data-tab-id={tab.id}
      role="tab"
      aria-selected={active}
      tabIndex={active ? 0 : -1}
      title={title}
      style={drag.style}
      {...drag.handlers}
      onContextMenu={(e) => {
        e.preventDefault();
        const n = store.get().layout?.tabs.length ?? 1;
        actions.openMenu({ x: e.clientX, y: e.clientY, label: `Tab ${title || index + 1}`, items: tabMenu(actions, tab.id, n) });
      }}
      onMouseEnter={() => setHover(true)}
      onMouseLeave={() => setHover(false)}
      onMouseDown={(e) => {
        if (e.button === 1) {
          e.preventDefault();
          void actions.closeTab(tab.id);
        }
      }}
      onClick={() => actions.activateTab(tab.id)}
      onDoubleClick={(e) => {
        // Anywhere on the tab but its close button (the title text is only a line high).
        if (!(e.target as HTMLElement).closest('button, input')) actions.startRename(tab.id);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') actions.activateTab(tab.id);
      }}
    >
      {badgeKind && (
        <span className={'tab-badge badge-' + badgeKind} data-testid="tab-badge" data-badge={badgeKind} role="img" aria-label={badgeLabel} title={badgeLabel} />
      )}
      {hostLabel && (
        <span className="tab-host" data-testid="tab-host" title={`on ${hostLabel}`}>
          {hostLabel}
        </span>
      )}
      <TabTitle tab={tab} shown={title || `Tab ${index + 1}`} />
      <button
        className={'icon-button tab-close' + (active || hover ? ' shown' : '')}
        data-testid="close-tab"
        aria-label={`Close tab ${title || index + 1}`}
        title="Close tab"
        onClick={(e) => {
          e.stopPropagation();
          void actions.closeTab(tab.id);
        }}
      >
        <CloseIcon />
      </button>
    </div>
  );
}
