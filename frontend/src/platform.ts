// What differs between the Wails window and a browser tab: clipboard and
// opening links. Wails' runtime (window.runtime) is used only when present.

interface WailsRuntime {
  BrowserOpenURL?: (url: string) => void;
  ClipboardGetText?: () => Promise<string>;
  ClipboardSetText?: (text: string) => Promise<boolean>;
}

function wails(): WailsRuntime | undefined {
  return (window as unknown as { runtime?: WailsRuntime }).runtime;
}

export function openExternal(url: string): void {
  const rt = wails();
  if (rt?.BrowserOpenURL) {
    rt.BrowserOpenURL(url);
    return;
  }
  window.open(url, '_blank', 'noopener,noreferrer');
}

export async function writeClipboard(text: string): Promise<void> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return;
    }
  } catch {
    // Fall through: permission denied or not a secure context.
  }
  const rt = wails();
  if (rt?.ClipboardSetText && (await rt.ClipboardSetText(text))) return;
  // Last resort: the legacy copy command on a hidden textarea.
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand('copy');
  ta.remove();
  if (!ok) throw new Error('clipboard not available');
}

/** Whether readClipboard can work; when false, let the browser's own paste happen. */
export function canReadClipboard(): boolean {
  return Boolean(navigator.clipboard?.readText || wails()?.ClipboardGetText);
}

export async function readClipboard(): Promise<string> {
  if (navigator.clipboard?.readText) {
    try {
      return await navigator.clipboard.readText();
    } catch (err) {
      const rt = wails();
      if (rt?.ClipboardGetText) return rt.ClipboardGetText();
      throw err;
    }
  }
  const rt = wails();
  if (rt?.ClipboardGetText) return rt.ClipboardGetText();
  throw new Error('clipboard not available');
}

/**
 * Opens a file or folder of this machine with the desktop's default application (the desktop
 * window's App.OpenPath runs xdg-open). Resolves false where that is not possible (a browser tab).
 */
export async function openPath(abs: string): Promise<boolean> {
  const app = (window as unknown as { go?: { main?: { App?: { OpenPath?: (p: string) => Promise<void> } } } }).go?.main?.App;
  if (!app?.OpenPath) return false;
  await app.OpenPath(abs);
  return true;
}
