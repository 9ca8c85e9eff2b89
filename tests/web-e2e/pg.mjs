// SPDX-License-Identifier: Apache-2.0
// A throwaway PostgreSQL cluster for the page's team tests, as
// tests/common/pgcluster.h makes one for the C++ tests: initdb into a
// temporary directory, a server on a private Unix socket (no TCP at all:
// listen_addresses = ''), fsync off, trust for local connections, and the
// client tools to drive it.
//
// initdb and postgres refuse to run as root, and CI runs as root: then the
// server-side binaries run as the OS user `postgres` (Debian's postgresql
// package creates it) through runuser, in a directory handed to that user.
// Client tools (psql, createdb) and holdpoint run as the caller; root can
// reach the socket.

import { execFile, spawn } from 'node:child_process';
import { chownSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 60000;
const LOG_TAIL_LINES = 40;

/** The caller's environment without PG* variables (PGHOST, PGSERVICE, ...) that would redirect the tools. */
export function cleanEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PG')));
}

/** Debian's /usr/lib/postgresql/<major>/bin: the highest major with initdb, or null. */
export function findPgBinDir(base = '/usr/lib/postgresql') {
  let majors = [];
  try {
    majors = readdirSync(base).filter((e) => /^\d+$/.test(e)).map(Number);
  } catch {
    return null;
  }
  majors.sort((a, b) => b - a);
  const best = majors.find((m) => existsSync(join(base, String(m), 'bin', 'initdb'))
    && existsSync(join(base, String(m), 'bin', 'pg_ctl')));
  return best === undefined ? null : join(base, String(best), 'bin');
}

/** `{uid, gid}` of an OS user from /etc/passwd, or null. */
function osUser(name) {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === name && f.length >= 4) return { uid: Number(f[2]), gid: Number(f[3]) };
    }
  } catch { /* no /etc/passwd */ }
  return null;
}

const isRoot = () => process.geteuid?.() === 0;
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((p) => existsSync(p));

export class PgCluster {
  /** @param binDir where initdb, pg_ctl, createdb and psql are (findPgBinDir()). */
  constructor(binDir) {
    this.binDir = binDir;
    this.adminUser = 'holdpoint_admin';
    this.port = 5432; // only names the socket file: there is no TCP listener
    this.dir = null;
    this.running = false;
    this.watchdog = null;
  }

  get socketDir() { return this.dir; }
  get dataDir() { return join(this.dir, 'data'); }
  get logFile() { return join(this.dir, 'server.log'); }

  /** A libpq connection string for `database` as `user` (the admin by default), over the socket. */
  connString(database, user = this.adminUser) {
    return `host=${this.dir} port=${this.port} dbname=${database} user=${user}`;
  }

  /** initdb and start the server; rejects with what went wrong (and the server log's tail). */
  async start() {
    if (isRoot()) {
      this.owner = osUser('postgres');
      if (!this.owner) {
        throw new Error('running as root, which initdb and postgres refuse, and there is no OS user `postgres` '
          + 'to run them as (apt-get install postgresql)');
      }
      if (!RUNUSER) throw new Error('running as root and no `runuser` to become `postgres`');
    }
    // /tmp is traversable by `postgres`; the directory itself is handed over.
    this.dir = mkdtempSync(join(tmpdir(), 'holdpoint-pg-'));
    if (Buffer.byteLength(join(this.dir, `.s.PGSQL.${this.port}`)) >= 108) {
      throw new Error(`socket directory path too long for a Unix socket: ${this.dir}`);
    }
    this.handOver(this.dir, 0o700);
    this.startWatchdog();
    await this.tool('initdb', ['-D', this.dataDir, '-A', 'trust', '-U', this.adminUser,
      '--encoding=UTF8', '--no-locale', '--no-instructions', '--no-sync'], { asServer: true });
    // Only what we write here: initdb's default also trusts TCP from loopback.
    this.writeFile(join(this.dataDir, 'pg_hba.conf'), 'local all all trust\n');
    this.writeFile(join(this.dataDir, 'postgresql.conf'),
      `${readFileSync(join(this.dataDir, 'postgresql.conf'), 'utf8')}\n`
      + `port = ${this.port}\nunix_socket_directories = '${this.dir.replace(/'/g, "''")}'\n`
      + "listen_addresses = ''\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 100\n");
    try {
      await this.tool('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-w', '-t', '30', 'start'], { asServer: true });
    } catch (error) {
      let tail = '';
      try {
        tail = readFileSync(this.logFile, 'utf8').split('\n').slice(-LOG_TAIL_LINES - 1).join('\n');
      } catch { /* no log */ }
      // A start that timed out may still come up later: do not leave it behind.
      if (existsSync(join(this.dataDir, 'postmaster.pid'))) await this.stopServer().catch(() => {});
      error.message += `\n--- end of ${this.logFile} ---\n${tail}`;
      throw error;
    }
    this.running = true;
    return this;
  }

  /** Stops the server at once (pg_ctl stop -m immediate) and removes its directory. */
  async stop() {
    if (!this.dir) return;
    try {
      if (this.running) await this.stopServer();
    } finally {
      this.running = false;
      rmSync(this.dir, { recursive: true, force: true });
      // Its work is done: let it go without stopping anything.
      this.watchdog?.kill('SIGKILL');
      this.watchdog = null;
      this.dir = null;
    }
  }

  stopServer() {
    return this.tool('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', 'stop'], { asServer: true });
  }

  createDatabase(name) {
    return this.tool('createdb', [...this.socketArgs(), '-T', 'template0', '-E', 'UTF8', name]);
  }

  /** psql -c `sql` on `database` (as `user`); resolves with stdout, unaligned and tuples only. */
  async psql(database, sql, user) {
    return (await this.tool('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-At', ...this.socketArgs(user),
      '-d', database, '-c', sql])).stdout;
  }

  /** psql -f `path` on `database` (as `user`). */
  async psqlFile(database, path, user) {
    return (await this.tool('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-At', ...this.socketArgs(user),
      '-d', database, '-f', path])).stdout;
  }

  // ---- inside ----

  socketArgs(user = this.adminUser) {
    return ['-h', this.dir, '-p', String(this.port), '-U', user];
  }

  /** As root: gives `path` to `postgres`; then sets `mode`. */
  handOver(path, mode) {
    if (this.owner) chownSync(path, this.owner.uid, this.owner.gid);
    chmodSync(path, mode);
  }

  /** Writes a file in the cluster directory, owned by the server's user like the rest. */
  writeFile(path, text) {
    writeFileSync(path, text);
    this.handOver(path, 0o600);
  }

  /**
   * One tool to completion, in the cluster directory (as `postgres`, root's
   * working directory is out of reach), without PG* variables. Rejects with
   * the command and its output.
   */
  async tool(name, args, { asServer = false } = {}) {
    let program = join(this.binDir, name);
    if (asServer && this.owner) {
      args = ['-u', 'postgres', '--', program, ...args];
      program = RUNUSER;
    }
    try {
      return await run(program, args, { cwd: this.dir, env: cleanEnvironment(), timeout: TOOL_TIMEOUT_MS });
    } catch (error) {
      const why = error.killed ? `timed out after ${TOOL_TIMEOUT_MS / 1000} s` : `exit code ${error.code ?? error.signal}`;
      throw new Error(`${program} ${args.join(' ')} (${why}):\n${error.stderr ?? ''}${error.stdout ?? ''}`);
    }
  }

  /**
   * If this process dies without running `after` (a crash, a kill on a
   * ctest timeout), the shell's stdin closes and it takes the server and the
   * directory with it, rather than leave an orphaned server behind.
   */
  startWatchdog() {
    let halt = [join(this.binDir, 'pg_ctl'), '-D', this.dataDir, '-m', 'immediate', 'stop'];
    if (this.owner) halt = [RUNUSER, '-u', 'postgres', '--', ...halt];
    const watchdog = spawn('/bin/sh', ['-c', 'trap \'\' HUP INT TERM; read -r _; "$@"; rm -rf -- "$0"', this.dir, ...halt],
      { cwd: '/', env: cleanEnvironment(), stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    watchdog.on('error', () => {});
    watchdog.stdin.on('error', () => {});
    // Neither keeps this process alive.
    watchdog.unref();
    watchdog.stdin.unref?.();
    this.watchdog = watchdog;
  }
}
