import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'drizzle-orm';
import type { RunningProcess } from '@/server/boot/start-process';
import { contextFor } from '@/server/context';
import { createQuote } from '@/server/quotes/create';
import { afterAll, beforeAll } from 'vitest';
import { newSubscription } from './partner-api';
import { startReceiver, type Responder } from './receiver';
import { NYC, startTestService, TEST_ENCRYPTION_KEY, type TestPartner, type TestService } from './service';

/**
 * Node's flags to run a TypeScript entry point as package.json's scripts do: one process with tsx's loader.
 * Not the `tsx` command, which runs the script in a child and SIGKILLs it when it does not acknowledge a
 * relayed signal within 60 ms: a service busy for that long (a first console render) was killed undrained.
 */
export const TSX_IMPORT = ['--import', 'tsx'];

// Helpers for the tests that run several real server processes over one database (ops, jobs, webhooks).

export interface ServerProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 (empty for a worker). */
  url: string;
  /** A worker's /metrics address, when it was started with METRICS_PORT. */
  metricsUrl?: string;
  pid: number;
  /** Everything the process printed, for failure messages. */
  output: string[];
  stop(): Promise<void>;
  /** Sends `signal` to the whole process group (as a terminal's Ctrl-C or `kill -- -pgid` would), without waiting. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the whole process group; resolves once the service exited. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();

// Never leave a server behind, even if the test process dies between beforeAll and afterAll.
process.once('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // The whole group this test started: the service and anything it spawned in it.
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * `node --import tsx server/boot/web.ts` (`npm start`) as a web-only process over `databaseUrl`, on a port the kernel picks (read
 * back from the start-up banner, so there is no race for a "free" port). Resolves once it printed
 * that it is ready.
 */
export async function spawnServer(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return spawnService('server/boot/web.ts', databaseUrl, env, /ready in [\d.]+ s at http:\/\/[^:\s]+:(\d+)/, (m) => ({
    url: `http://127.0.0.1:${m[1]}`,
  }));
}

/**
 * `node --import tsx server/boot/worker.ts` (`npm run worker`) over `databaseUrl`: job workers only. Resolves once it is ready
 * (with METRICS_PORT, once it printed where its metrics are).
 */
export async function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return spawnService('server/boot/worker.ts', databaseUrl, env, /worker ready(?:, metrics at (\S+))?\n/, (m) => ({
    url: '',
    ...(m[1] ? { metricsUrl: m[1] } : {}),
  }));
}

async function spawnService(
  script: string,
  databaseUrl: string,
  env: Record<string, string>,
  ready: RegExp,
  addressesOf: (match: RegExpExecArray) => Pick<ServerProcess, 'url' | 'metricsUrl'>,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...TSX_IMPORT, script], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      PORT: '0',
      WORKERS: 'off',
      CONSOLE: 'off',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      // Drains end before stop()'s SIGKILL 8 s after its SIGTERM.
      SHUTDOWN_TIMEOUT_MS: '5000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return void running.delete(child);
    killGroup(child, signal);
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 8000);
    await exited;
    clearTimeout(timer);
    running.delete(child);
  };
  const stop = () => end('SIGTERM');
  const addresses = await new Promise<Pick<ServerProcess, 'url' | 'metricsUrl'>>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('no "ready" line within 60 s')), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      void stop();
      reject(new Error(`${error.message}; output:\n${output.join('')}`));
    };
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = ready.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(addressesOf(match));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('exit', (code, signal) => fail(new Error(`${script} exited early (code ${code}, signal ${signal})`)));
    child.once('error', fail);
  });
  return { ...addresses, pid: child.pid!, output, stop, signal: (signal) => killGroup(child, signal), exited, kill: () => end('SIGKILL') };
}

/** A quote of the partner's, made through the domain verb so that no HTTP request spends its tokens. */
export async function seedQuote(svc: RunningProcess, partner: TestPartner): Promise<string> {
  const [cred] = await svc.rt.db.execute<{ id: string }>(sql`select id from credentials where client_id = ${partner.clientId}`);
  const quote = await createQuote({
    ctx: contextFor(
      svc.rt,
      {
        kind: 'partner',
        partnerId: partner.partnerId,
        environment: partner.environment,
        credentialId: cred!.id,
        clientId: partner.clientId,
      },
      'req_seed',
    ),
    input: NYC,
  });
  return quote.id;
}

/**
 * What the multi-process tests share: a web-only in-process service over the file's database (it
 * seeds and reads; every delivery comes from a spawned process), an HTTPS receiver answering each
 * path with its responder (200 without one), and the processes the file spawns, ended after its
 * tests (`kill`, or a graceful `stop`).
 */
export function useProcesses({ teardown }: { teardown: 'kill' | 'stop' }) {
  let svc: TestService | undefined;
  let receiver: Receiver | undefined;
  const responders = new Map<string, Responder>();
  const processes: ServerProcess[] = [];
  beforeAll(async () => {
    svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    receiver = await startReceiver((req, i) => (responders.get(req.path) ?? (() => ({ status: 200 })))(req, i));
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p[teardown]()));
    await receiver?.close();
  });
  return {
    get svc(): TestService {
      return svc!;
    },
    get receiver(): Receiver {
      return receiver!;
    },
    processes,
    /** Tracks a spawned process, so the file's teardown ends it. */
    async track(spawned: Promise<ServerProcess>): Promise<ServerProcess> {
      const p = await spawned;
      processes.push(p);
      return p;
    },
    /** Kills what earlier tests left running (a failed test does not stop its own). */
    async killLeftovers(): Promise<void> {
      await Promise.all(processes.splice(0).map((p) => p.kill()));
    },
    /** A subscription to `path` on the receiver (or another port) for order.created, answered by `respond`. */
    async subscribe(partner: TestPartner, path: string, respond: Responder, port = receiver!.port): Promise<string> {
      responders.set(path, respond);
      return (await newSubscription(partner, { url: `https://localhost:${port}${path}`, event_filters: ['order.created'] })).id;
    },
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
