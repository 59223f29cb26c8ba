export interface BenchOptions {
  /** Scenario names to run; empty means all of them. */
  scenarios: string[];
  /** Seconds of load per measured run (the soak: its whole length). */
  durationSeconds: number;
  /** Whether --duration or BENCH_DURATION was given: the soak runs 30 minutes unless it was. */
  durationGiven: boolean;
  /** Measured rounds; every side runs once per round, in an order that rotates from round to round. */
  rounds: number;
  connections: number;
  /** Requests per second over all connections (open-loop); undefined: as fast as the server answers. */
  rate?: number;
  /** Seconds of unmeasured load per side before the first round. */
  warmupSeconds: number;
  /** Profile instead of compare: one run per side with V8's CPU profiler on, then a cost breakdown. */
  profile: boolean;
  /** Another checkout whose service runs as an extra side ("candidate"), to measure a change against this one. */
  compareDir?: string;
  list: boolean;
  help: boolean;
}

export const USAGE = `Usage: npm run bench -- [scenario...] [--duration=S] [--rounds=N] [--connections=N] [--warmup=S] [--profile] [--list]

  scenario         run only these scenarios (default: all; --list shows them)
  --duration=S     seconds of load per measured run           (env BENCH_DURATION, default 10);
                   the soak's whole length                    (default 1800, at least 60)
  --rounds=N       rounds; each side runs once per round      (env BENCH_ROUNDS, default 3)
  --connections=N  concurrent connections                     (env BENCH_CONNECTIONS, default 50)
  --warmup=S       unmeasured seconds per side before round 1 (env BENCH_WARMUP, default 3)
  --rate=R         send R requests/s in all instead of as many as the server answers (env BENCH_RATE):
                   compares CPU per request and latency at equal load
  --profile        CPU-profile each side under load instead of comparing them (env BENCH_PROFILE=1)
  --compare=DIR    also run the service of another checkout of this repo as side "candidate", e.g. a
                   branch with an optimisation (env BENCH_COMPARE_DIR; DIR needs node_modules, a
                   symlink to this checkout's will do)

  DATABASE_URL     benchmark against this database (migrated first); otherwise an embedded
                   PostgreSQL is started in a temporary directory and removed at the end.

Quick check: BENCH_DURATION=3 BENCH_ROUNDS=1 npm run bench -- quotes`;

export class UsageError extends Error {}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const flags = new Map<string, string>();
  const scenarios: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('--')) {
      const [name, value] = arg.slice(2).split('=', 2) as [string, string | undefined];
      flags.set(name, value ?? 'true');
    } else {
      scenarios.push(arg);
    }
  }
  const known = new Set(['duration', 'rounds', 'connections', 'rate', 'warmup', 'profile', 'compare', 'list', 'help']);
  for (const name of flags.keys()) if (!known.has(name)) throw new UsageError(`unknown option --${name}`);

  const number = (flag: string, envName: string, fallback: number, min: number): number => {
    const text = flags.get(flag) ?? env[envName];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < min) throw new UsageError(`--${flag} / ${envName} must be a number >= ${min}, got '${text}'`);
    return value;
  };
  const bool = (flag: string, envName: string): boolean => {
    const text = flags.get(flag) ?? env[envName];
    return text !== undefined && text !== '' && text !== '0' && text !== 'false';
  };

  return {
    scenarios,
    durationSeconds: number('duration', 'BENCH_DURATION', 10, 1),
    durationGiven: (flags.get('duration') ?? env.BENCH_DURATION ?? '') !== '',
    rounds: Math.floor(number('rounds', 'BENCH_ROUNDS', 3, 1)),
    connections: Math.floor(number('connections', 'BENCH_CONNECTIONS', 50, 1)),
    rate: number('rate', 'BENCH_RATE', 0, 0) || undefined,
    warmupSeconds: number('warmup', 'BENCH_WARMUP', 3, 0),
    profile: bool('profile', 'BENCH_PROFILE'),
    compareDir: (flags.get('compare') ?? env.BENCH_COMPARE_DIR) || undefined,
    list: bool('list', 'BENCH_LIST'),
    help: bool('help', 'BENCH_HELP'),
  };
}
