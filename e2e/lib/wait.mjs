// Polling without fixed sleeps as assertions: wait until a condition holds, or fail with a
// message that says what was seen last.

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Calls fn every intervalMs until it returns a truthy value (which is returned) or timeoutMs
 * passes (then throws, with message() if given). Errors thrown by fn are fatal unless
 * retryErrors is set.
 */
export async function waitFor(fn, { timeoutMs = 10000, intervalMs = 50, message, retryErrors = false } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastErr;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (!retryErrors) throw e;
      lastErr = e;
    }
    if (Date.now() > deadline) {
      const m = typeof message === 'function' ? await message() : message || 'condition';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${m}${lastErr ? ` (last error: ${lastErr.message})` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/** A random word that cannot appear by accident. */
export function codeword(prefix = 'cw') {
  return `${prefix}${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36).slice(-4)}`;
}
