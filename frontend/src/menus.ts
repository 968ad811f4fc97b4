// The context menus of a pane and of a tab, built from the command table (keys.ts) so each item
// shows the same shortcut as the palette and the tooltips.

import type { Actions } from './actions';
import { command, keyLabel, type Shortcut } from './keys';

export interface MenuItem {
  id: string;
  label: string;
  /** The shortcut shown at the right. */
  keys?: string;
  disabled?: boolean;
  /** A line above this item. */
  separator?: boolean;
  run: () => void;
}

export interface MenuRequest {
  /** Where it was asked for (client pixels); the menu is kept inside the window from there. */
  x: number;
  y: number;
  label: string;
  items: MenuItem[];
}

function item(actions: Actions, id: Shortcut, paneId: string | undefined, extra: Partial<MenuItem> = {}): MenuItem {
  return { id, label: command(id).title, keys: keyLabel(id), run: () => actions.shortcut(id, paneId), ...extra };
}

export function paneMenu(actions: Actions, paneId: string, hasSelection: boolean): MenuItem[] {
  return [
    item(actions, 'copy', paneId, { disabled: !hasSelection }),
    item(actions, 'paste', paneId),
    item(actions, 'selectAll', paneId),
    item(actions, 'search', paneId, { separator: true }),
    item(actions, 'clear', paneId),
    item(actions, 'splitRight', paneId, { separator: true }),
    item(actions, 'splitDown', paneId),
    item(actions, 'closePane', paneId, { separator: true }),
  ];
}

export function tabMenu(actions: Actions, tabId: string, tabCount: number): MenuItem[] {
  return [
    { id: 'renameTab', label: command('renameTab').title, run: () => actions.startRename(tabId) },
    { id: 'newTab', label: command('newTab').title, keys: keyLabel('newTab'), run: () => actions.newTab() },
    { id: 'moveTabLeft', label: command('moveTabLeft').title, keys: keyLabel('moveTabLeft'), separator: true, run: () => actions.moveTabBy(tabId, -1) },
    { id: 'moveTabRight', label: command('moveTabRight').title, keys: keyLabel('moveTabRight'), run: () => actions.moveTabBy(tabId, 1) },
    { id: 'closeTab', label: command('closeTab').title, separator: true, run: () => void actions.closeTab(tabId) },
    { id: 'closeOtherTabs', label: command('closeOtherTabs').title, disabled: tabCount < 2, run: () => void actions.closeOtherTabs(tabId) },
  ];
}
