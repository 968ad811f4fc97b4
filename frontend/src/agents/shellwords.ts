// Shell words typed into a settings field, e.g. `threads continue` or
// `--flag "two words"`, into argv, and back. splitWords mirrors the host's
// shellquote.Split (backend/shellquote) rule for rule, so the page can show a
// parse error before anything is sent: POSIX quoting and word splitting, no
// expansion, no operators ($, globs, ~, `…`, ;, |, … are ordinary characters).

export type SplitResult = { ok: true; words: string[] } | { ok: false; error: string };

export const ERR_SINGLE = 'unterminated single quote';
export const ERR_DOUBLE = 'unterminated double quote';
export const ERR_BACKSLASH = 'trailing backslash';
export const ERR_UTF8 = 'invalid UTF-8';

/** Go's unicode.IsControl: C0, DEL and C1. */
function isControl(cp: number): boolean {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
}

function controlError(cp: number): string {
  return `control character U+${cp.toString(16).toUpperCase().padStart(4, '0')} not allowed`;
}

/** A lone surrogate cannot be encoded as UTF-8 (Go would see invalid UTF-8 bytes). */
function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

class ParseError extends Error {}

/**
 * Splits s into words: blanks (space, tab, newline) separate words; a backslash
 * outside quotes takes the next character literally (backslash-newline is removed);
 * single quotes take everything up to the next single quote literally; inside double
 * quotes a backslash escapes only $ ` " \ and newline; '' or "" is an empty word.
 * Control characters are refused except tab and newline as separators.
 */
export function splitWords(s: string): SplitResult {
  if (hasLoneSurrogate(s)) return { ok: false, error: ERR_UTF8 };
  const cps = Array.from(s, (c) => c.codePointAt(0) ?? 0);
  const words: string[] = [];
  let cur = '';
  let inWord = false; // distinguishes an empty word ('') from no word
  const check = (cp: number) => {
    if (isControl(cp)) throw new ParseError(controlError(cp));
  };
  try {
    for (let i = 0; i < cps.length; ) {
      const c = cps[i]!;
      switch (c) {
        case 0x20: // space
        case 0x09: // tab
        case 0x0a: // newline
          if (inWord) {
            words.push(cur);
            cur = '';
            inWord = false;
          }
          i++;
          break;
        case 0x5c: {
          // backslash
          if (i + 1 === cps.length) throw new ParseError(ERR_BACKSLASH);
          const next = cps[i + 1]!;
          i += 2;
          if (next === 0x0a) break; // line continuation: removed, and it does not start a word
          check(next);
          cur += String.fromCodePoint(next);
          inWord = true;
          break;
        }
        case 0x27: {
          // single quote
          const end = cps.indexOf(0x27, i + 1);
          if (end < 0) throw new ParseError(ERR_SINGLE);
          for (let j = i + 1; j < end; j++) check(cps[j]!);
          cur += String.fromCodePoint(...cps.slice(i + 1, end));
          inWord = true;
          i = end + 1;
          break;
        }
        case 0x22: {
          // double quote
          let j = i + 1;
          let closed = false;
          while (j < cps.length) {
            const d = cps[j]!;
            if (d === 0x22) {
              closed = true;
              break;
            }
            const e = cps[j + 1];
            if (d === 0x5c && e !== undefined && (e === 0x24 || e === 0x60 || e === 0x22 || e === 0x5c || e === 0x0a)) {
              if (e !== 0x0a) cur += String.fromCodePoint(e);
              j += 2;
              continue;
            }
            // Includes a backslash before any other character, which stays as it is.
            check(d);
            cur += String.fromCodePoint(d);
            j++;
          }
          if (!closed) throw new ParseError(ERR_DOUBLE);
          inWord = true;
          i = j + 1;
          break;
        }
        default:
          check(c);
          cur += String.fromCodePoint(c);
          inWord = true;
          i++;
      }
    }
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, error: e.message };
    throw e;
  }
  if (inWord) words.push(cur);
  return { ok: true, words };
}

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word as the user would type it: bare when safe, else single-quoted. splitWords reads it back. */
export function quoteWord(w: string): string {
  if (SAFE.test(w)) return w;
  return "'" + w.replace(/'/g, `'\\''`) + "'";
}

/** argv as shell words for a text field; splitWords(joinWords(a)) equals a. */
export function joinWords(words: readonly string[] | null | undefined): string {
  return (words ?? []).map(quoteWord).join(' ');
}
