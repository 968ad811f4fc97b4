// Links in a terminal open only with the platform's modifier held (Ctrl+click,
// Cmd+click on macOS), as in VS Code and iTerm2: a plain click focuses or
// selects, and must never open a browser by accident.

/** Whether the page runs on macOS (Cmd is the link modifier there). */
export function onMac(nav: { platform?: string; userAgent?: string } | undefined = typeof navigator !== 'undefined' ? navigator : undefined): boolean {
  const p = nav?.platform || nav?.userAgent || '';
  return /Mac|iPhone|iPad/i.test(p);
}

/** Whether a click on a link should open it: the modifier is held (Ctrl, or Cmd on macOS). */
export function linkActivates(ev: Pick<MouseEvent, 'ctrlKey' | 'metaKey'>, mac = onMac()): boolean {
  return mac ? ev.metaKey : ev.ctrlKey;
}

/** What the hover tooltip over a link says. */
export function linkHint(mac = onMac()): string {
  return mac ? 'Cmd+click to open' : 'Ctrl+click to open';
}
