// A real OpenSSH server on 127.0.0.1 for one test, as internal/testenv/sshd.go starts it for the
// Go tests: throwaway host and user keys, its own sshd_config and authorized_keys, and an ssh
// client config that trusts exactly that host key (StrictHostKeyChecking yes). The remote is the
// same Unix user; the test gives it its own Reprise home.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './wait.mjs';

export const SSHD_BIN = '/usr/sbin/sshd';
export const haveSSHD = () => existsSync(SSHD_BIN) && existsSync('/usr/bin/ssh');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function banner(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    let got = '';
    c.on('data', (d) => {
      got += d;
      if (got.includes('\n')) {
        c.destroy();
        resolve(got.startsWith('SSH-'));
      }
    });
    c.on('error', () => resolve(false));
    c.setTimeout(2000, () => (c.destroy(), resolve(false)));
  });
}

/**
 * Starts sshd; extra lines go into sshd_config. stop() / start() again on the same port.
 * opts.passphrase locks the user key with it (no agent: the client config says IdentityAgent none).
 */
/** extra with PYENV_REHASH_TIMEOUT=0 joined to its first SetEnv line (sshd applies only that one). */
function withQuietRehash(extra) {
  const i = extra.findIndex((l) => l.startsWith('SetEnv '));
  if (i < 0) return [...extra, 'SetEnv PYENV_REHASH_TIMEOUT=0'];
  return extra.map((l, j) => (j === i ? `${l} PYENV_REHASH_TIMEOUT=0` : l));
}

export async function startSSHD(extra = [], opts = {}) {
  // Short: ssh control sockets and the remote daemon's socket live under it.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sshd'));
  const user = os.userInfo().username;
  const keygen = (p, pass = '') => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', pass, '-C', 'reprise-test', '-f', p]);
  const hostKey = path.join(dir, 'host_ed25519');
  const userKey = path.join(dir, 'id_ed25519');
  keygen(hostKey);
  keygen(userKey, opts.passphrase ?? '');
  const auth = path.join(dir, 'authorized_keys');
  writeFileSync(auth, readFileSync(userKey + '.pub'), { mode: 0o600 });
  const port = await freePort();
  const cfg = path.join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${auth}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`,
      'LogLevel VERBOSE',
      // As in internal/testenv/sshd.go (withQuietRehash): a pyenv lock left by a killed login
      // must not make every later login wait 60 s; sshd applies only its first SetEnv line.
      ...withQuietRehash(extra),
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  mkdirSync('/run/sshd', { recursive: true });
  const [kt, kb] = readFileSync(hostKey + '.pub', 'utf8').trim().split(/\s+/);
  const knownHosts = path.join(dir, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${kt} ${kb}\n`, { mode: 0o600 });
  const alias = 'reprise-test';
  const config = path.join(dir, 'ssh_config');
  writeFileSync(
    config,
    `Host ${alias}\n  HostName 127.0.0.1\n  Port ${port}\n  User ${user}\n  IdentityFile ${userKey}\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n`,
    { mode: 0o600 },
  );
  const s = {
    dir,
    port,
    alias,
    config,
    user,
    userKey,
    proc: null,
    /** (Re)starts the listener on the same port. */
    async start() {
      s.proc = spawn(SSHD_BIN, ['-D', '-e', '-f', cfg], { stdio: 'ignore', detached: true });
      await waitFor(() => banner(port), { timeoutMs: 10000, message: `sshd on 127.0.0.1:${port}` });
    },
    /** Stops the listener: no new connections (sessions already open keep their own sshd). */
    async stop() {
      const p = s.proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const gone = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await gone;
    },
    async close() {
      await s.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await s.start();
  return s;
}

/** Pids of the ssh clients (ControlMaster included) whose command line names dir (a Reprise home). */
export function sshClientsOf(dir) {
  const pids = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      // A ControlPersist master renames itself "ssh: <control path> [mux]".
      const isSSH = path.basename(cmd[0] ?? '') === 'ssh' || (cmd[0] ?? '').startsWith('ssh: ');
      if (isSSH && cmd.join(' ').includes(dir)) pids.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
