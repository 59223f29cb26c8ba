import type postgres from 'postgres';
import type { Logger } from '@/server/logger';

/** Whether reads go to the replica now, and how far behind the primary the last probe found it. */
export interface ReadReplica {
  readonly onReplica: boolean;
  /** An upper bound on the replica's lag at the last probe, in seconds; undefined while unknown (unreachable, not yet probed). */
  readonly lagSeconds: number | undefined;
  /** One probe: the primary's WAL position, then the replica's; sets onReplica and lagSeconds. */
  probe(): Promise<void>;
  /** Probes every PROBE_INTERVAL_MS until the returned function is called. */
  start(): () => void;
}

export const PROBE_INTERVAL_MS = 1000;

interface Sample {
  at: number;
  lsn: bigint;
}

/** '16/B374D848' → its byte position. */
export function lsnOf(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * The rule for leaving and rejoining the replica. Each probe notes the primary's flushed WAL position
 * with the time, then reads how far the replica has replayed: the replica holds every write the
 * primary had at the newest noted time whose position it has reached, so its lag is at most the time
 * since then (to the probe's second: a busy primary's latest position is always a little ahead).
 * Reads go to the replica while that bound is within `maxLagSeconds`; past it, or when the replica
 * does not answer, they go to the primary, and come back at the first probe that finds it caught up.
 * A read database that is not replaying WAL (a stand-in, or the primary itself under another name)
 * is as fresh as it will ever be: lag 0. Replay time stamps (`pg_last_xact_replay_timestamp`) are not
 * used: on an idle primary they age while the replica is fully caught up.
 * Readiness does not depend on it: with the replica gone the primary serves the reads, as it does
 * without DATABASE_READ_URL (README "Read replica").
 */
export function readReplica({
  primary,
  replica,
  maxLagSeconds,
  log,
}: {
  primary: postgres.Sql;
  replica: postgres.Sql;
  maxLagSeconds: number;
  log: Logger;
}): ReadReplica {
  const samples: Sample[] = [];
  const state = { onReplica: false, lagSeconds: undefined as number | undefined };

  const settle = (onReplica: boolean, lagSeconds: number | undefined, reason: string) => {
    if (onReplica !== state.onReplica) {
      if (onReplica) log.info({ lag_seconds: lagSeconds }, 'read replica: reads go to the replica');
      else log.warn({ lag_seconds: lagSeconds, reason }, 'read replica: reads go to the primary');
    }
    state.onReplica = onReplica;
    state.lagSeconds = lagSeconds;
  };

  const probe = async () => {
    const [{ lsn }] = await primary<[{ lsn: string }]>`select pg_current_wal_flush_lsn()::text as lsn`;
    const now = Date.now();
    samples.push({ at: now, lsn: lsnOf(lsn) });
    // Older samples than the tolerated lag say nothing more: a replica behind all of them is too far behind.
    while (samples.length > 1 && samples[0]!.at < now - (maxLagSeconds + 2) * 1000) samples.shift();
    let row: { recovering: boolean; replayed: string | null };
    try {
      [row] = await replica<[{ recovering: boolean; replayed: string | null }]>`
        select pg_is_in_recovery() as recovering, pg_last_wal_replay_lsn()::text as replayed`;
    } catch (error) {
      return settle(false, undefined, `unreachable: ${(error as Error).message}`);
    }
    if (!row.recovering || row.replayed === null) return settle(true, 0, 'not replaying');
    const replayed = lsnOf(row.replayed);
    const reached = samples.findLast((s) => s.lsn <= replayed);
    const checkedAt = Date.now();
    if (!reached) return settle(false, (checkedAt - samples[0]!.at) / 1000, 'behind every noted position');
    const lag = (checkedAt - reached.at) / 1000;
    settle(lag <= maxLagSeconds, lag, `lag ${lag.toFixed(1)} s over ${maxLagSeconds} s`);
  };

  return {
    get onReplica() {
      return state.onReplica;
    },
    get lagSeconds() {
      return state.lagSeconds;
    },
    probe,
    start() {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const loop = () => {
        timer = setTimeout(async () => {
          // A primary that does not answer leaves the choice as it was: every statement fails on it anyway.
          await probe().catch((error: unknown) => log.warn({ err: error }, 'read replica: probe failed'));
          if (!stopped) loop();
        }, PROBE_INTERVAL_MS);
        timer.unref();
      };
      loop();
      return () => {
        stopped = true;
        clearTimeout(timer);
      };
    },
  };
}
