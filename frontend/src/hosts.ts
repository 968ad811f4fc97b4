// Remote hosts as the page shows them: the link state in words, the "New tab on host…" menu,
// and which hosts a tab's panes run on. Pure, so Vitest covers it.

import type { HostInfo, HostStatus, Terminal } from './api';
import type { MenuItem } from './menus';

export type HostState = 'connected' | 'connecting' | 'disconnected' | 'failed' | 'unknown';

/** The link in the words Settings → Hosts uses; an empty state is a host no terminal has used since the host started. */
export function hostState(s: HostStatus | undefined): HostState {
  switch (s?.state) {
    case 'up':
      return 'connected';
    case 'connecting':
      return 'connecting';
    case 'disconnected':
      return 'disconnected';
    case 'failed':
      return 'failed';
    default:
      return 'unknown';
  }
}

/** The listed hosts with the newest status from "host" events over the one hosts.list returned. */
export function withLiveStatus(hosts: readonly HostInfo[], live: Readonly<Record<string, HostStatus>>): HostInfo[] {
  return hosts.map((h) => (live[h.name] ? { ...h, status: live[h.name]! } : h));
}

/** The "New tab on host…" menu: this machine first, then each host with its link state. */
export function hostMenuItems(hosts: readonly HostInfo[], open: (host: string) => void, manage: () => void): MenuItem[] {
  const items: MenuItem[] = [{ id: 'host:', label: 'This machine', run: () => open('') }];
  for (const h of hosts) {
    const st = hostState(h.status);
    items.push({ id: 'host:' + h.name, label: `${h.name} — ${h.ssh}${st === 'connected' || st === 'unknown' ? '' : ` (${st})`}`, run: () => open(h.name) });
  }
  items.push({
    id: 'hosts-settings',
    label: hosts.length ? 'Manage hosts…' : 'No remote hosts yet — add one…',
    separator: true,
    run: manage,
  });
  return items;
}

/** The remote hosts a tab's terminals run on, in pane order, each once ('' for none: all on this machine). */
export function tabHostLabel(terminals: readonly (Terminal | undefined)[]): string {
  const seen: string[] = [];
  for (const t of terminals) if (t?.host && !seen.includes(t.host)) seen.push(t.host);
  return seen.join(', ');
}
