import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@/db/embedded/free-port';
import { newcomerEnv, processesUsing } from '../support/newcomer';
import { waitFor } from '../support/poll';
import { startTestService, type TestService } from '../support/service';

// The partner quick start, measured as a newcomer: the guide is read as /docs serves it, and its commands are
// run as written, in a newcomer's shell from a fresh DATA_DIR. The two that start a server (the receiver, then
// the service) each get a terminal of their own; every other block runs, in order, in a third, after the
// banner's URL and credentials are put where the guide says. It passes once the receiver prints an
// `order.delivered` of the order the guide made with its signature valid, within the promise of five
// minutes from the first command. The console is off (CONSOLE=off, as the guide offers): no step needs it.

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROMISE_MS = 5 * 60_000;

let docs: TestService;
let dataDir: string;
const terminals: ChildProcess[] = [];

beforeAll(async () => {
  // The /docs a newcomer reads (any running service serves the same guides).
  docs = await startTestService({ CONSOLE: 'off', WORKERS: 'off' });
  const dir = await mkdtemp(path.join(tmpdir(), 'pdp-quick-start-'));
  // As root the embedded Postgres runs as `postgres`, which must enter the directory.
  await chmod(dir, 0o755);
  dataDir = path.join(dir, 'data');
});

afterAll(async () => {
  for (const child of terminals) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (!dataDir) return;
  for (const pid of processesUsing(dataDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await waitFor('the run’s Postgres gone', () => processesUsing(dataDir).length === 0, { timeoutMs: 10_000 }).catch(() => {});
  await rm(path.dirname(dataDir), { recursive: true, force: true });
}, 30_000);

/** The guide's shell steps: its ```bash blocks, in order. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trimEnd());
}

interface Terminal {
  output: () => string;
  /** The first match of `pattern` in what the terminal printed, once it appears. */
  waitFor(pattern: RegExp, what: string, timeoutMs: number): Promise<RegExpExecArray>;
}

/** A terminal running `command` in the repository's folder, in its own process group (killed after the file). */
function terminal(command: string, env: NodeJS.ProcessEnv): Terminal {
  const child = spawn('bash', ['-c', command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  terminals.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return {
    output: () => out,
    waitFor: (pattern, what, timeoutMs) =>
      waitFor(
        what,
        () => {
          if (child.exitCode !== null) throw new Error(`\`${command}\` exited (${child.exitCode}):\n${out}`);
          return pattern.exec(out) ?? undefined;
        },
        { timeoutMs, intervalMs: 100, context: () => out },
      ),
  };
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('the partner quick start (docs/guides/quick-start.md)', () => {
  it(
    'takes a newcomer from the first command to a verified order.delivered at the receiver within five minutes',
    async () => {
      const guide = await (await fetch(`${docs.url}/docs/guides/quick-start.md`)).text();
      const [receiverStep, serviceStep, ...commands] = bashBlocks(guide);
      // Its shape: a receiver, the service, then the commands of a third terminal.
      expect(receiverStep).toBe('npm run receiver');
      expect(serviceStep).toMatch(/ npm start$/);
      expect(commands.length).toBeGreaterThan(0);

      // RECEIVER_PORT=0 and PORT: free ports for the guide's own commands, where 4000 and 3000 may be taken.
      const env = newcomerEnv(dataDir, await freePort(), { CONSOLE: 'off', RECEIVER_PORT: '0', LOG_LEVEL: 'warn' });
      const left = (started: number) => PROMISE_MS - (performance.now() - started);
      const started = performance.now();

      const receiver = terminal(receiverStep!, env);
      // "the command the receiver printed": the guide's, with this run's DATA_DIR for the default .data.
      const serviceCommand = serviceStep!.replaceAll('.data/', `${dataDir}/`);
      await receiver.waitFor(
        new RegExp(escaped(serviceCommand)),
        'the receiver printing the guide’s command for the service',
        left(started),
      );

      const service = terminal(serviceCommand, env);
      const banner = await service.waitFor(
        /ready in [\d.]+ s at (\S+)\n[\s\S]*?X-Client-ID: (\S+)\n\s+X-API-Key:\s+(\S+)\n/,
        'the banner',
        left(started),
      );
      const [, url, clientId, apiKey] = banner;
      // "the receiver subscribes ..., sends itself a webhook.test and prints it": a reader sees it before going on.
      await receiver.waitFor(/webhook\.test \w+ .*signature valid/, 'the receiver verifying its webhook.test', left(started));

      // "replace each <…> with the value the banner shows"
      const printed = (placeholder: string) => {
        if (/X-Client-ID/.test(placeholder)) return clientId!;
        if (/X-API-Key/.test(placeholder)) return apiKey!;
        if (/URL/.test(placeholder)) return url!;
        throw new Error(`the guide asks for <${placeholder}>, which the banner does not print`);
      };
      const script = commands.map((block) => block.replace(/<([^<>\n]+)>/g, (_, placeholder: string) => printed(placeholder))).join('\n');
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: ROOT, env, timeout: 60_000 }, (error, out, err) =>
          error ? reject(new Error(`${error.message}\n${out}\n${err}`)) : resolve(out),
        ),
      );
      const order = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { id: string; status: string };
      expect(order.status, stdout).toBe('created');

      await receiver.waitFor(
        new RegExp(`order\\.delivered \\w+ \\(${order.id}: delivered\\)  signature valid`),
        `the receiver verifying order.delivered of ${order.id}`,
        left(started),
      );
      const ms = performance.now() - started;
      console.log(
        `[quick start] first command to a verified order.delivered: ${(ms / 1000).toFixed(1)} s (console off; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
      );
      // Every event of the order arrived verified on the way.
      for (const status of ['created', 'courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff']) {
        expect(receiver.output()).toMatch(new RegExp(`\\(${order.id}: ${status}\\)  signature valid`));
      }
      expect(receiver.output()).not.toContain('INVALID');
      expect(ms).toBeLessThan(PROMISE_MS);
    },
    PROMISE_MS + 30_000,
  );
});
