// Endpoint discovery: the desktop app asks the bound Go method; the browser
// (`reprise serve`) connects back to the origin that served the page.

import type { Endpoint } from './transport';

interface WailsWindow {
  go?: { main?: { App?: { Endpoint?: () => Promise<Endpoint> } } };
}

export interface LocationLike {
  protocol: string;
  host: string;
  search: string;
}

export async function discoverEndpoint(win: WailsWindow = window as WailsWindow, loc: LocationLike = location): Promise<Endpoint> {
  const bound = win.go?.main?.App?.Endpoint;
  if (bound) {
    const ep = await bound();
    return { url: ep.url, token: ep.token };
  }
  return browserEndpoint(loc);
}

export function browserEndpoint(loc: LocationLike): Endpoint {
  const token = new URLSearchParams(loc.search).get('token') ?? '';
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return { url: `${scheme}://${loc.host}/ws`, token };
}

/** The URL to open: url + "?token=" + token. Without a token the cookie set by the page load authenticates. */
export function socketURL(ep: Endpoint): string {
  if (!ep.token) return ep.url;
  const sep = ep.url.includes('?') ? '&' : '?';
  return `${ep.url}${sep}token=${encodeURIComponent(ep.token)}`;
}
