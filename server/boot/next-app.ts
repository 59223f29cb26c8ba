import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { NextHandler } from '@/server/http/front-door';
import type { Logger } from '@/server/logger';

const ROOT = process.cwd();
const STAMP = path.join(ROOT, '.next', 'source-stamp');
// What the console build depends on; partner routes are served by the front door from source.
const SOURCES = ['app', 'server', 'db', 'jobs', 'next.config.ts', 'package-lock.json', 'tsconfig.json', 'package.json'];

/** Builds the Next app when its sources changed since the last build (first run: ~1 min), then returns its handler. */
export async function prepareNext(log: Logger): Promise<NextHandler> {
  const stamp = sourceStamp();
  if (!isBuilt(stamp)) {
    await withBuildLock(async () => {
      if (isBuilt(stamp)) return; // another process built it while we waited
      log.info('building the web console with `next build` (first start, or sources changed; takes about a minute)...');
      console.log('Building the web console (first start, or sources changed): about a minute...');
      await runNextBuild();
      // Stamped as they are after the build: `next build` may itself edit a source (tsconfig.json's
      // include), and a stamp taken before would make the next start build again.
      writeFileSync(STAMP, sourceStamp());
    });
  }
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: ROOT, quiet: true });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (req, res) => handle(req, res);
}

function isBuilt(stamp: string): boolean {
  return existsSync(path.join(ROOT, '.next', 'BUILD_ID')) && readStamp() === stamp;
}

const LOCK = path.join(ROOT, '.next-build.lock');
const LOCK_OWNER = path.join(LOCK, 'pid');

/**
 * Two processes starting at once (tests, a web and a worker) must not run `next build` into one .next.
 * The lock directory names its holder's pid: a lock left by a process that died (Ctrl-C or a kill
 * during the first build) is taken over at once instead of blocking every later start for minutes.
 */
async function withBuildLock(fn: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(LOCK_OWNER, String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (lockIsStale()) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`waited 10 minutes for another next build (${LOCK})`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  holdingLock = true;
  try {
    await fn();
  } finally {
    holdingLock = false;
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function lockIsStale(): boolean {
  let owner: number;
  try {
    owner = Number(readFileSync(LOCK_OWNER, 'utf8'));
  } catch {
    // Between another process's mkdir and its write of the pid, or a lock from before pids were kept.
    const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    return age > 30_000;
  }
  if (!(owner > 0)) return true;
  try {
    process.kill(owner, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

let holdingLock = false;
let building: ChildProcess | undefined;

// This process exiting mid-build (a signal during the first start, a failed start): stop the build it
// started (its own process group, workers included) and release the lock.
process.on('exit', () => {
  if (building?.pid !== undefined && building.exitCode === null && building.signalCode === null) {
    try {
      process.kill(-building.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  if (holdingLock) rmSync(LOCK, { recursive: true, force: true });
});

function runNextBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const bin = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
    const child = spawn(process.execPath, [bin, 'build'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      detached: true,
    });
    building = child;
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      building = undefined;
      if (code === 0) resolve();
      else reject(new Error(`next build failed (${signal ? `signal ${signal}` : `exit code ${code}`})`));
    });
  });
}

function readStamp(): string | undefined {
  try {
    return readFileSync(STAMP, 'utf8');
  } catch {
    return undefined;
  }
}

function sourceStamp(): string {
  const hash = createHash('sha256');
  const visit = (p: string): void => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) visit(path.join(p, name));
    } else {
      hash.update(path.relative(ROOT, p)).update(readFileSync(p));
    }
  };
  for (const s of SOURCES) visit(path.join(ROOT, s));
  return hash.digest('hex');
}
