// The fake Claude Code (internal/fakeagents) for the e2e tests that run an agent.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The Go toolchain ($GO, /usr/local/go/bin/go or go on PATH), null without one. */
export const GO =
  [process.env.GO, '/usr/local/go/bin/go', 'go'].find((g) => {
    if (!g) return false;
    try {
      execFileSync(g, ['version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }) ?? null;

/** A test's skip option: false, or why it cannot run. */
export const NEEDS_GO = GO ? false : 'go is not installed (needed to build the fake claude)';

/**
 * A throwaway world for the fake Claude: a temp dir with bin/ (the fake built into it), home/
 * and a work directory (workName). serve, its terminals and the CLI take process.env, so bin goes
 * first on PATH, HOME becomes home/, and env (an object, or a function of the temp dir) is set too; done() puts the environment back and
 * removes the dir.
 */
export function fakeWorld({ prefix = 'rfake.', workName = 'work', env = {} } = {}) {
  const tmp = mkdtempSync(path.join(tmpdir(), prefix));
  const bin = path.join(tmp, 'bin');
  const home = path.join(tmp, 'home');
  const work = path.join(tmp, workName);
  for (const d of [bin, home, work]) mkdirSync(d);
  const claude = path.join(bin, 'claude');
  execFileSync(GO, ['build', '-o', claude, './internal/fakeagents/cmd/claude'], { cwd: REPO, stdio: 'inherit' });
  const set = { PATH: `${bin}:${process.env.PATH}`, HOME: home, ...(typeof env === 'function' ? env(tmp) : env) };
  const saved = Object.fromEntries(Object.keys(set).map((k) => [k, process.env[k]]));
  Object.assign(process.env, set);
  return {
    tmp,
    bin,
    home,
    work,
    claude,
    done() {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
