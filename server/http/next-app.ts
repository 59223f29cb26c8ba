import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger';
import type { NextHandler } from './front-door';

const ROOT = process.cwd();
const STAMP = path.join(ROOT, '.next', 'source-stamp');
// What the console build depends on; partner routes are served by the front door from source.
const SOURCES = ['app', 'server', 'db', 'jobs', 'next.config.ts', 'package-lock.json', 'tsconfig.json'];

/** Builds the Next app when its sources changed since the last build (first run: ~1 min), then returns its handler. */
export async function prepareNext(log: Logger): Promise<NextHandler> {
  const stamp = sourceStamp();
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID')) || readStamp() !== stamp) {
    log.info('building the web console with `next build` (first start, or sources changed; takes about a minute)...');
    console.log('Building the web console (first start, or sources changed): about a minute...');
    await runNextBuild();
    writeFileSync(STAMP, stamp);
  }
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: ROOT, quiet: true });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (req, res) => handle(req, res);
}

function runNextBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const bin = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
    const child = spawn(process.execPath, [bin, 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed with exit code ${code}`))));
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
