import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureLocalCa } from '../server/boot/local-ca';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Starts the service as a newcomer's `npm start` does (embedded Postgres in a fresh data directory,
 * demo operator and partner seeded, console built if needed) and hands the tests its URL and the
 * banner's credentials through the environment. Returns the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pdp-e2e-'));
  // As root the embedded Postgres runs as `postgres`, which must enter the directory.
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  // A CA of the run for the specs' HTTPS webhook receivers (e2e/receiver.ts); the service trusts it as
  // `npm run receiver` tells a developer to: NODE_EXTRA_CA_CERTS.
  const ca = ensureLocalCa(path.join(dataDir, 'local-ca'), { name: 'pdp e2e CA', days: 2 });
  process.env.E2E_CA_DIR = ca.dir;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: path.join(dataDir, 'data'),
    PORT: String(port),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // A streak is announced as failing after 2 s rather than an hour, so notices.spec.ts sees one; the
    // sandbox (every spec's demo partner) notifies nobody unless a spec opts in, and that spec opts out again.
    WEBHOOK_NOTICE_FAILING_AFTER_SECONDS: '2',
    NODE_EXTRA_CA_CERTS: ca.caCert,
  };
  for (const k of ['DATABASE_URL', 'NODE_ENV', 'CONSOLE', 'WORKERS']) delete env[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/boot/web.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 240_000; // the first start builds the console (about a minute)
  while (!/\n\s+-d '[^\n]*'\n/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const banner = out.slice(out.indexOf('ready in'));
  process.env.E2E_BASE_URL = /ready in [\d.]+ s at (\S+)/.exec(banner)![1];
  [, process.env.E2E_OPERATOR_EMAIL, process.env.E2E_OPERATOR_PASSWORD] = /Demo operator: (\S+) \/ (\S+)/.exec(banner)!;
  process.env.E2E_CLIENT_ID = /X-Client-ID: (\S+)/.exec(banner)![1];
  process.env.E2E_API_KEY = /X-API-Key:\s+(\S+)/.exec(banner)![1];

  return async () => {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    rmSync(dataDir, { recursive: true, force: true });
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
