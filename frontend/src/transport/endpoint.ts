// Endpoint discovery: the desktop app asks the bound Go method; the browser
// (`reprise serve`) connects back to the origin that served the page.
//
// Browser mode holds its token in the page, never in a cookie: cookies are
// scoped by host, not port, so a browser would hand a 127.0.0.1 cookie to
// every other server on 127.0.0.1. `reprise serve` prints
// http://127.0.0.1:PORT/#token=T; the page takes T from the fragment (or,
// for older links, the query), keeps it in sessionStorage (scoped to this
// origin, port included, and to this tab; it survives a reload), and
// removes it from the address bar and the history entry. docs/security.md.

import type { Endpoint } from './transport';

interface WailsWindow {
  go?: { main?: { App?: { Endpoint?: () => Promise<Endpoint> } } };
}

export interface LocationLike {
  protocol: string;
  host: string;
  search: string;
  hash?: string;
  pathname?: string;
}

/** The parts of sessionStorage and history the browser endpoint uses (fakes in tests). */
export interface TokenPlace {
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  replaceURL: ((url: string) => void) | null;
}

/** The sessionStorage key of the page's token. */
export const TOKEN_KEY = 'reprise.token';

export async function discoverEndpoint(win: WailsWindow = window as WailsWindow, loc: LocationLike = location): Promise<Endpoint> {
  const bound = win.go?.main?.App?.Endpoint;
  if (bound) {
    const ep = await bound();
    return { url: ep.url, token: ep.token };
  }
  return browserEndpoint(loc, pageTokenPlace());
}

export function browserEndpoint(loc: LocationLike, place: TokenPlace = { storage: null, replaceURL: null }): Endpoint {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return { url: `${scheme}://${loc.host}/ws`, token: adoptToken(loc, place) };
}

/**
 * The page's token: from the address if it carries one (then stored, and removed from the
 * address bar and history), else the one stored for this tab, else ''.
 */
export function adoptToken(loc: LocationLike, place: TokenPlace): string {
  const hash = new URLSearchParams((loc.hash ?? '').replace(/^#/, ''));
  const query = new URLSearchParams(loc.search);
  const fromURL = hash.get('token') ?? query.get('token');
  if (fromURL === null) {
    try {
      return place.storage?.getItem(TOKEN_KEY) ?? '';
    } catch {
      return '';
    }
  }
  try {
    place.storage?.setItem(TOKEN_KEY, fromURL);
  } catch {
    // Storage refused (private mode quotas): the token lives in this load only.
  }
  hash.delete('token');
  query.delete('token');
  const q = query.toString();
  const h = hash.toString();
  place.replaceURL?.(`${loc.pathname ?? '/'}${q ? `?${q}` : ''}${h ? `#${h}` : ''}`);
  return fromURL;
}

function pageTokenPlace(): TokenPlace {
  let storage: Storage | null;
  try {
    storage = window.sessionStorage;
  } catch {
    storage = null; // storage disabled: the token lives in this load only
  }
  return { storage, replaceURL: (url) => history.replaceState(history.state, '', url) };
}

/** The URL to open: url + "?token=" + token. */
export function socketURL(ep: Endpoint): string {
  if (!ep.token) return ep.url;
  const sep = ep.url.includes('?') ? '&' : '?';
  return `${ep.url}${sep}token=${encodeURIComponent(ep.token)}`;
}

/** False in a browser page that carries no token (opened without the address `reprise serve` printed). */
export function pageHasToken(win: WailsWindow = window as WailsWindow, loc: LocationLike = location): boolean {
  if (win.go?.main?.App?.Endpoint) return true;
  return adoptToken(loc, pageTokenPlace()) !== '';
}
