import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Local PostgreSQL servers a test starts for itself (issue 31 point 7): a primary with streaming replicas, in a temp
 * directory, on free loopback ports, run as the `postgres` user from Debian's PostgreSQL 15 binaries. The shared
 * cluster on 5432 is never touched.
 */

const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Why these servers cannot be started here, or null when they can. */
export function clusterUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'the test starts PostgreSQL as the postgres user: it must run as root';
  if (!existsSync(join(PG_BIN, 'initdb'))) return `no PostgreSQL 15 binaries in ${PG_BIN}`;
  return null;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick, released for the server to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** Runs a command as the postgres user. */
export async function asPostgres(cmd: string, args: string[]): Promise<string> {
  const { stdout } = await run('runuser', ['-u', 'postgres', '--', cmd, ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** A temp directory the postgres user owns. */
export function postgresDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const { uid, gid } = pgUser();
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o700);
  return dir;
}

function pgUser(): { uid: number; gid: number } {
  // The home of Debian's postgres user belongs to it.
  const st = statSync('/var/lib/postgresql');
  return { uid: st.uid, gid: st.gid };
}

export interface LocalCluster {
  primaryUrl: string;
  replicaUrls: string[];
  dir: string;
  /** Stops every server and removes the directory. */
  stop(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 in `dir`, readable by the postgres user only. */
async function certificate(dir: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  await asPostgres('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=engine-test', '-keyout', key, '-out', cert]);
  chmodSync(key, 0o600);
  return { cert, key };
}

/**
 * A primary and `replicas` streaming replicas (pg_basebackup -R). `ssl`: the servers offer TLS with a self-signed
 * certificate (its name is not 127.0.0.1, so verify-full refuses it).
 */
export async function startCluster(replicas: number, opts: { ssl?: boolean } = {}): Promise<LocalCluster> {
  const dir = postgresDir('engine-pg-');
  const started: string[] = [];
  const stop = async (): Promise<void> => {
    for (const data of started.reverse()) await asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primary = join(dir, 'primary');
    await asPostgres(join(PG_BIN, 'initdb'), ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const port = await freePort();
    const conf = [
      `port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, 'fsync = off',
      'max_connections = 40', 'shared_buffers = 16MB', 'max_wal_senders = 5',
    ];
    if (opts.ssl) {
      const { cert, key } = await certificate(dir);
      conf.push('ssl = on', `ssl_cert_file = '${cert}'`, `ssl_key_file = '${key}'`);
    }
    writeFileSync(join(primary, 'postgresql.auto.conf'), `${conf.join('\n')}\n`);
    await asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', primary, '-l', join(dir, 'primary.log'), '-w', 'start']);
    started.push(primary);
    const replicaUrls: string[] = [];
    for (let i = 0; i < replicas; i++) {
      const data = join(dir, `replica${i}`);
      await asPostgres(join(PG_BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync']);
      const rport = await freePort();
      await asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', data, '-l', join(dir, `replica${i}.log`), '-o', `-p ${rport}`, '-w', 'start']);
      started.push(data);
      replicaUrls.push(`postgres://postgres@127.0.0.1:${rport}/postgres`);
    }
    return { primaryUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, replicaUrls, dir, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
