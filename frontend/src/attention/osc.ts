// Desktop notifications that programs in a pane ask for with an escape sequence, parsed from
// the payloads xterm's parser.registerOscHandler hands over (the text after "N;"):
//   OSC 9 ; body                  (iTerm2 / Windows Terminal; ConEmu's "9;N;…" sub-commands are not notifications)
//   OSC 777 ; notify ; title ; body   (rxvt-unicode, foot, WezTerm, Ghostty)
//   OSC 99 ; metadata ; payload   (kitty: metadata "k=v:k=v", i= id, d=0 more to come,
//                                  p=title|body, e=1 payload base64)

export interface OscNotification {
  title: string;
  body: string;
}

/** Longest title / body kept: a program cannot flood the notification daemon. */
const MAX_LEN = 512;

function clip(s: string): string {
  // Control characters have no place in a notification.
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return t.length > MAX_LEN ? t.slice(0, MAX_LEN - 1) + '…' : t;
}

export function parseOsc9(data: string): OscNotification | null {
  if (/^\d+(;|$)/.test(data)) return null; // ConEmu: 9;4;… progress, 9;1;… sleep, …
  const body = clip(data);
  return body ? { title: '', body } : null;
}

export function parseOsc777(data: string): OscNotification | null {
  const parts = data.split(';');
  if (parts[0] !== 'notify') return null;
  const title = clip(parts[1] ?? '');
  const body = clip(parts.slice(2).join(';'));
  return title || body ? { title, body } : null;
}

/** Kitty's OSC 99 arrives in chunks (d=0 until the last); one parser per terminal keeps them. */
export class Osc99Parser {
  private pending = new Map<string, { title: string; body: string }>();

  /** One OSC 99 payload; the notification when it is complete. */
  feed(data: string): OscNotification | null {
    const semi = data.indexOf(';');
    if (semi < 0) return null;
    const meta: Record<string, string> = {};
    for (const kv of data.slice(0, semi).split(':')) {
      const eq = kv.indexOf('=');
      if (eq > 0) meta[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    let payload = data.slice(semi + 1);
    if (meta.e === '1') {
      try {
        payload = new TextDecoder().decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0)));
      } catch {
        return null;
      }
    }
    const p = meta.p ?? 'title';
    if (p !== 'title' && p !== 'body') return null; // icons, buttons, queries: not supported
    const id = meta.i ?? '';
    const cur = this.pending.get(id) ?? { title: '', body: '' };
    if (p === 'title') cur.title += payload;
    else cur.body += payload;
    if (meta.d === '0') {
      if (this.pending.size > 16 && !this.pending.has(id)) this.pending.clear(); // abandoned chunks
      this.pending.set(id, cur);
      return null;
    }
    this.pending.delete(id);
    const title = clip(cur.title);
    const body = clip(cur.body);
    if (!title && !body) return null;
    // kitty shows a lone title as the notification's text.
    return { title, body };
  }
}
