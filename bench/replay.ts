import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureLocalCa } from '@/server/boot/local-ca';
import { startEmitter, type BenchEmitter } from './emitter';
import { median, percentile } from './load';
import { processTreeCpuMs } from './cpu';
import { quantileBetween, scrapeMetrics, type MetricsSample } from './service-probes';
import { analyseProfile, formatBreakdown, largestProfile, readProfile } from './profile';
import { benchClient, createBenchPartner, succeeded, type BenchPartner } from './partner';
import { startReceiver, type BenchReceiver } from './receiver';
import { figure, type BenchContext, type Scenario, type ScenarioOutcome } from './scenario';
import { REPLAY_PAGE as REPLAY_PAGE_JOB } from '@/server/outbox/queues';
import { startChild } from './processes';
import { serviceEnv, startService } from './sides';
import { int, ms, ratio, table } from './table';

// A partner's backfill beside its live traffic: a subscription made after BENCH_REPLAY_EVENTS events
// were committed replays them all (`only: missing`) while live events keep coming. The replay guide promises
// that live events keep arriving during a backfill (replayed deliveries leave a quarter of a
// subscription's in-flight share to live ones and are fetched after them): the live latency during the replay
// is measured against the same stream's latency before it, on the same process, in the same run.

const LIVE_PER_SECOND = 50;
const HISTORY_DAYS = 20;
const AIM_P99_RATIO = 2;
// Issue 23: a backfill to a receiver that keeps up runs at 2,000 events/s or more, paced by the receiver.
const AIM_REPLAYED_PER_SECOND = 2000;
const PROGRESS_EVERY_MS = 5000;
// Live events still on their way when a phase ends: how long to wait for them before calling them lost.
const DRAIN_TIMEOUT_MS = 30_000;
const PATH = '/replay';
// The pace's unit in the note: blocks of 200 past events in id order, the order a replay sends them in. Its pages
// are sized by the engine's room (server/replays/run-page.ts, up to 1,000), so a block is not a page.
const REPLAY_PAGE = 200;
const REPLAY_PAGE_QUEUE = REPLAY_PAGE_JOB.name;

export const replayScenario: Scenario = {
  name: 'replay',
  description:
    `BENCH_REPLAY_EVENTS (default 100,000) past order events, never sent to a subscription made after them, replayed to it through ` +
    `POST /partner/webhooks/{id}/replay (one window of ${HISTORY_DAYS} days) while ${LIVE_PER_SECOND} live events/s keep being committed; ` +
    'replayed events/s, and the live commit-to-receipt p50/p99 during the replay against the same stream alone (npm start: web and workers ' +
    "in one process, the replay's pages on its replay thread; or with BENCH_REPLAY_WORKER=1 on a worker process of their own; a local " +
    'HTTPS receiver checking every signature).',
  run,
};

type Phase = 'warm-up' | 'alone' | 'between' | 'replay' | 'after';

interface LiveEvent {
  phase: Phase;
  committedAt: number;
  receivedAt?: number;
}

/**
 * Receipts sorted into live and replayed events, read incrementally: the receiver only appends, so
 * each look at it costs what arrived since the last one.
 */
function tracker(receiver: BenchReceiver, history: Set<string>) {
  const live = new Map<string, LiveEvent>();
  const replayed = new Map<string, number>(); // event id -> first arrival
  const state = { live, replayed, duplicates: 0, unknown: 0, lastReplayedAt: 0 };
  let read = 0;
  const scan = () => {
    const receipts = receiver.receipts;
    for (; read < receipts.length; read++) {
      const { at, key } = receipts[read]!;
      const id = key.slice(key.indexOf(' ') + 1);
      if (history.has(id)) {
        if (replayed.has(id)) state.duplicates++;
        else replayed.set(id, at);
        state.lastReplayedAt = Math.max(state.lastReplayedAt, at);
        continue;
      }
      const event = live.get(id);
      if (!event) state.unknown++;
      else if (event.receivedAt !== undefined) state.duplicates++;
      else event.receivedAt = at;
    }
  };
  return { live, replayed, state, scan };
}

/** Live events, one per transaction (as each order commits its own), paced at `perSecond` until stopped. */
function startLiveStream(emitter: BenchEmitter, perSecond: number, live: Map<string, LiveEvent>, phase: () => Phase) {
  let stopped = false;
  const stream = { error: undefined as string | undefined, stop: async () => {} };
  const done = (async () => {
    const started = Date.now();
    for (let sent = 0; !stopped; sent++) {
      const due = started + (sent / perSecond) * 1000;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      if (stopped) break;
      const { ids, committedAt } = await emitter.emit(1);
      // The phase at the commit's return: once a phase has ended, none of its events is still to come.
      for (const id of ids) live.set(id, { phase: phase(), committedAt });
    }
  })().catch((e: unknown) => {
    stream.error = e instanceof Error ? e.message : String(e);
  });
  stream.stop = async () => {
    stopped = true;
    await done;
  };
  return stream;
}

function latencies(live: Map<string, LiveEvent>, phase: Phase) {
  const values: number[] = [];
  let committed = 0;
  for (const e of live.values()) {
    if (e.phase !== phase) continue;
    committed++;
    if (e.receivedAt !== undefined) values.push(e.receivedAt - e.committedAt);
  }
  values.sort((a, b) => a - b);
  return { committed, received: values.length, p50: percentile(values, 50), p99: percentile(values, 99) };
}

/**
 * BENCH_REPLAY_EVENTS order.created events spread over the `HISTORY_DAYS` before `end`, written in one
 * statement (emitting them one by one would take longer than the replay). Ids are ULIDs of their creation
 * time, as the service makes them, so the replay's keyset walk meets them in time order; the envelope
 * is the one emitEvent stores, with its id.
 */
async function seedHistory(ctx: BenchContext, partner: BenchPartner, count: number, end: Date): Promise<Set<string>> {
  const sql = ctx.database.admin;
  const start = new Date(end.getTime() - HISTORY_DAYS * 86_400_000);
  const stepMs = (end.getTime() - start.getTime()) / count;
  await sql`create or replace function bench_replay_ulid_at(ts timestamptz, n bigint) returns text language plpgsql immutable as $$
    declare ms bigint := floor(extract(epoch from ts) * 1000); alphabet text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; t text := '';
    begin for i in 1..10 loop t := substr(alphabet, (ms % 32)::int + 1, 1) || t; ms := ms / 32; end loop;
    return t || lpad(upper(to_hex(n)), 16, '0'); end $$`;
  try {
    // The order ids take a tail of their own (n + 2^32), so they never equal an event id.
    await sql`
      insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      select x.id, ${partner.partnerId}, ${partner.environment}, 'order.created', x.order_id,
        jsonb_build_object(
          'id', x.id, 'object', 'event', 'created', x.unix, 'livemode', false, 'type', 'order.created',
          'data', jsonb_build_object('object', jsonb_build_object(
            'id', x.order_id, 'object', 'order', 'status', 'created', 'external_id', 'bench-replay-' || x.i,
            'fee', jsonb_build_object('amount', 743, 'currency', 'USD'),
            'status_history', jsonb_build_array(jsonb_build_object('status', 'created', 'at', x.unix))))),
        x.at
      from (
        select i, at, floor(extract(epoch from at))::bigint as unix,
          bench_replay_ulid_at(at, i) as id, bench_replay_ulid_at(at, i + 4294967296) as order_id
        from (select i, ${start.toISOString()}::timestamptz + (i - 1) * make_interval(secs => ${stepMs / 1000}) as at
              from generate_series(1, ${count}::int) i) t
      ) x`;
  } finally {
    await sql`drop function if exists bench_replay_ulid_at(timestamptz, bigint)`;
  }
  await sql`analyze events`;
  const rows = await sql<{ id: string }[]>`
    select id from events where partner_id = ${partner.partnerId} and created_at >= ${start.toISOString()}::timestamptz
      and created_at < ${end.toISOString()}::timestamptz`;
  return new Set(rows.map((r) => r.id));
}

/**
 * The median time from one page's first arrival to the next one's: with the page size, the pace the
 * replay's paging allows, to set beside the rate measured (a rate far below it is set elsewhere).
 */
function pageInterval(history: Set<string>, replayed: Map<string, number>): number {
  const ids = [...history].sort();
  const starts: number[] = [];
  for (let i = 0; i < ids.length; i += REPLAY_PAGE) {
    const arrivals = ids.slice(i, i + REPLAY_PAGE).flatMap((id) => replayed.get(id) ?? []);
    if (arrivals.length > 0) starts.push(Math.min(...arrivals));
  }
  const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
  return median(gaps) / 1000;
}

interface ReplayStatus {
  id: string;
  status: string;
  events_matched: number;
  events_enqueued: number;
  events_delivered: number;
  events_failed: number;
}

async function run(ctx: BenchContext): Promise<ScenarioOutcome> {
  const count = Math.max(1, Number(process.env.BENCH_REPLAY_EVENTS ?? 100_000));
  const replayWorker = process.env.BENCH_REPLAY_WORKER === '1';
  const side = replayWorker ? 'as started + replay worker' : 'as started';
  const timeoutMs = Math.max(1, Number(process.env.BENCH_REPLAY_TIMEOUT_S ?? 600)) * 1000;
  const caDir = mkdtempSync(path.join(tmpdir(), 'bench-ca-'));
  ctx.onCleanup(async () => rmSync(caDir, { recursive: true, force: true }));
  const ca = ensureLocalCa(caDir, { name: 'Partner Delivery bench CA', days: 2 });
  const receiver = await startReceiver(ca);
  ctx.onCleanup(receiver.close);
  // --profile: the service is CPU-profiled, and its profile read over the live stream alone and over the replay.
  const profileDir = ctx.options.profile ? mkdtempSync(path.join(tmpdir(), 'bench-replay-profile-')) : undefined;
  const serviceEnvOf = (extra: Record<string, string>) => ({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    NODE_EXTRA_CA_CERTS: ca.caCert,
    ...extra,
    ...JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}'),
  });
  const service = await startService(ctx, 'as started', {
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=250'] : [],
    env: serviceEnvOf(replayWorker ? { WORKER_QUEUES: `-${REPLAY_PAGE_QUEUE}` } : {}),
  });
  // BENCH_REPLAY_WORKER=1: the replay's pages (and so its attempts) worked by a worker process of their own, the
  // production layout's answer to a backfill (README, Processes); the service works every other queue.
  const worker = replayWorker
    ? await startChild(
        'replay worker',
        'server/boot/worker.ts',
        serviceEnv('as started', ctx.database.url, serviceEnvOf({ WORKER_QUEUES: REPLAY_PAGE_QUEUE })),
        {
          readyLine: /worker ready/,
        },
      )
    : undefined;
  if (worker) ctx.onCleanup(worker.stop);
  const partner = await createBenchPartner(ctx.database.url, 'Replay bench');
  const api = benchClient(service.url, partner);

  console.log(
    `${int(count)} past events replayed to one subscription beside ${LIVE_PER_SECOND} live events/s; ` +
      (replayWorker
        ? `the service as npm start runs it but for the replay's pages (WORKER_QUEUES=-${REPLAY_PAGE_QUEUE}), and a worker process for those; `
        : `one service process as npm start runs it (web, workers and console; the replay's pages on its replay thread unless ` +
          `REPLAY_THREAD=off); `) +
      `receiver: node:https in the bench process, every signature checked`,
  );
  console.log(`database: ${ctx.database.description}\n`);

  // A minute before now: the replay's window must end in the past, and before any live event.
  const end = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  const seedStarted = performance.now();
  const history = await seedHistory(ctx, partner, count, end);
  console.log(`seeded ${int(history.size)} events over ${HISTORY_DAYS} days in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const body = { url: `https://localhost:${receiver.port}${PATH}`, description: 'replay bench' };
  const created = succeeded('subscription', await api.POST('/partner/webhooks', { body }));
  receiver.secrets.set(PATH, created.secret);
  const webhookId = created.id;

  const emitter = await startEmitter(ctx.database.url, partner);
  ctx.onCleanup(emitter.stop);
  const seen = tracker(receiver, history);
  let phase: Phase = 'warm-up';
  const stream = startLiveStream(emitter, LIVE_PER_SECOND, seen.live, () => phase);
  ctx.onCleanup(stream.stop);
  const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));
  const waitForLive = async (of: Phase) => {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    for (;;) {
      seen.scan();
      const { committed, received } = latencies(seen.live, of);
      if (received >= committed || Date.now() > deadline) return;
      await sleep(50);
    }
  };

  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  await sleep(ctx.options.warmupSeconds * 1000);
  const aloneFromUs = nowUs();
  // CPU of the service, of Postgres and of this process (the receiver checking signatures, the emitter, the tracker).
  const cpuAt = () => {
    const own = process.cpuUsage();
    return {
      service: (processTreeCpuMs(service.pid) ?? NaN) + (worker ? (processTreeCpuMs(worker.pid) ?? NaN) : 0),
      postgres: processTreeCpuMs(ctx.database.serverPid) ?? NaN,
      bench: (own.user + own.system) / 1000,
    };
  };
  const cpuSince = (from: ReturnType<typeof cpuAt>) => {
    const now = cpuAt();
    return { service: now.service - from.service, postgres: now.postgres - from.postgres, bench: now.bench - from.bench };
  };
  const aloneCpuFrom = cpuAt();
  // The service's delivery lag histogram (a live delivery made by fan-out → its attempt started): where a live event
  // waits inside the engine, apart from its way there and the receiver's side.
  const sampleAt = async () => scrapeMetrics(service.url);
  const aloneFrom = await sampleAt();
  phase = 'alone';
  console.log(`live alone: ${ctx.options.durationSeconds} s at ${LIVE_PER_SECOND}/s`);
  await sleep(ctx.options.durationSeconds * 1000);
  phase = 'between';
  const aloneCpu = cpuSince(aloneCpuFrom);
  const aloneToUs = nowUs();
  await waitForLive('alone');
  const alone = latencies(seen.live, 'alone');
  const aloneSample = await sampleAt();
  const aloneLag = { from: aloneFrom.lagBuckets, to: aloneSample.lagBuckets };

  phase = 'replay';
  const replayFromUs = nowUs();
  const replayCpuFrom = cpuAt();
  const replayFrom = await sampleAt();
  const replayStartedAt = Date.now();
  const started = succeeded(
    'replay',
    await api.POST('/partner/webhooks/{id}/replay', {
      params: { path: { id: webhookId } },
      body: { since: Math.floor(end.getTime() / 1000) - HISTORY_DAYS * 86_400, until: Math.floor(end.getTime() / 1000), only: 'missing' },
    }),
  );
  if (started.object !== 'replay') throw new Error(`replay: answered ${JSON.stringify(started)}`);
  const replayId = started.id;
  console.log(`replay ${replayId}: ${int(started.events_matched)} events matched`);
  const status = async (): Promise<ReplayStatus> =>
    succeeded(
      'replay status',
      await api.GET('/partner/webhooks/{id}/replays/{replay_id}', { params: { path: { id: webhookId, replay_id: replayId } } }),
    );

  let lastProgress = { at: replayStartedAt, count: 0 };
  let replay: ReplayStatus | undefined;
  for (;;) {
    await sleep(100);
    seen.scan();
    const now = Date.now();
    if (seen.replayed.size >= history.size || now - replayStartedAt > timeoutMs) break;
    if (now - lastProgress.at >= PROGRESS_EVERY_MS) {
      replay = await status();
      const during = latencies(seen.live, 'replay');
      console.log(
        `  ${((now - replayStartedAt) / 1000).toFixed(0).padStart(4)} s: replayed ${int(seen.replayed.size)} / ${int(history.size)}, ` +
          `${int(((seen.replayed.size - lastProgress.count) * 1000) / (now - lastProgress.at))}/s now, ` +
          `${int((seen.replayed.size * 1000) / (now - replayStartedAt))}/s since the start; replay ${replay.status}, ` +
          `${int(replay.events_enqueued)} enqueued; live p50 ${ms(during.p50)} ms, p99 ${ms(during.p99)} ms`,
      );
      lastProgress = { at: now, count: seen.replayed.size };
      if (replay.status === 'failed' || replay.status === 'cancelled') break;
    }
  }
  const replaySeconds = ((seen.state.lastReplayedAt || Date.now()) - replayStartedAt) / 1000;
  const replayToUs = nowUs();
  const replayCpu = cpuSince(replayCpuFrom);
  phase = 'after';
  await waitForLive('replay');
  const replaySample = await sampleAt();
  const replayLag = { from: replayFrom.lagBuckets, to: replaySample.lagBuckets };
  await stream.stop();
  const during = latencies(seen.live, 'replay');
  // The replay's own counts settle once its last deliveries are recorded.
  for (let i = 0; i < 50; i++) {
    replay = await status();
    if (replay.status !== 'running' && replay.status !== 'queued' && replay.events_delivered >= replay.events_enqueued) break;
    await sleep(100);
  }
  if (profileDir) {
    await service.stop(); // writes the profile
    const file = largestProfile(profileDir);
    if (file) {
      const profile = readProfile(file);
      const live = latencies(seen.live, 'replay').received;
      console.log(
        formatBreakdown(
          `service, live stream alone (${file}); per delivery`,
          analyseProfile(profile, { fromUs: aloneFromUs, toUs: aloneToUs }, alone.received),
        ),
      );
      console.log(
        formatBreakdown(
          `service during the replay; per delivery (replayed and live)`,
          analyseProfile(profile, { fromUs: replayFromUs, toUs: replayToUs }, seen.replayed.size + live),
        ),
      );
    }
    return { failures: [] };
  }
  const perSecond = seen.replayed.size / replaySeconds;
  const pageSeconds = pageInterval(history, seen.replayed);

  console.log(
    '\n' +
      table(
        ['live stream', 'live events', 'received', 'p50 ms', 'p99 ms', 'replayed', 'replayed/s', 's'],
        [
          [
            'alone',
            int(alone.committed),
            int(alone.received),
            ms(alone.p50),
            ms(alone.p99),
            '-',
            '-',
            ctx.options.durationSeconds.toFixed(1),
          ],
          [
            'during the replay',
            int(during.committed),
            int(during.received),
            ms(during.p50),
            ms(during.p99),
            int(seen.replayed.size),
            int(perSecond),
            replaySeconds.toFixed(1),
          ],
        ],
      ),
  );
  console.log(
    `\n(replayed/s: distinct past events received from the replay request to the last one's arrival; live latency: from the commit of ` +
      `the event's transaction to its arrival at the receiver, both clocks in this process)`,
  );
  console.log(
    `replay ${replayId}: ${replay?.status}, matched ${int(replay?.events_matched ?? NaN)}, enqueued ${int(replay?.events_enqueued ?? NaN)}, ` +
      `delivered ${int(replay?.events_delivered ?? NaN)}, failed ${int(replay?.events_failed ?? NaN)}; duplicates ${seen.state.duplicates} ` +
      `(at-least-once; expected 0 without failures), invalid signatures ${receiver.invalid}`,
  );
  // What the replay costs the service beside the live stream: its CPU over the replay, less the live stream's at its cost alone.
  const liveCpuPerEvent = aloneCpu.service / Math.max(1, alone.received);
  const replayCpuPerEvent = (replayCpu.service - liveCpuPerEvent * during.received) / Math.max(1, seen.replayed.size);
  const shareOfCore = (cpuMs: number, fromUs: number, toUs: number) => `${int((cpuMs / (toUs - fromUs)) * 1e5)} %`;
  const shares = (cpu: ReturnType<typeof cpuSince>, fromUs: number, toUs: number) =>
    (['service', 'postgres', 'bench'] as const).map((k) => `${k} ${shareOfCore(cpu[k], fromUs, toUs)}`).join(', ');
  console.log(
    `CPU, % of one core (service: web and workers; bench: the receiver, the emitter and this tracker): live alone ` +
      `${shares(aloneCpu, aloneFromUs, aloneToUs)}; during the replay ${shares(replayCpu, replayFromUs, replayToUs)}. ` +
      `Service: ${liveCpuPerEvent.toFixed(2)} ms per live event alone, ${(replayCpuPerEvent * 1000).toFixed(0)} us per replayed event ` +
      `after the live stream's share`,
  );
  const lagMs = (q: number, lag: { from: [number, number][]; to: [number, number][] }) => ms(quantileBetween(q, lag.from, lag.to) * 1000);
  console.log(
    `Live attempts' wait in the engine (pdp_webhook_delivery_lag_seconds: the delivery made → its attempt started; buckets from 5 ms), ` +
      `p50/p99: alone ${lagMs(0.5, aloneLag)}/${lagMs(0.99, aloneLag)} ms, during the replay ${lagMs(0.5, replayLag)}/${lagMs(0.99, replayLag)} ms`,
  );
  // prom-client samples the loop every 10 ms, so an idle loop reads about 10 ms: the excess is what a callback waited.
  const loop = ({ loopDelayMs: d }: MetricsSample) => `${ms(d.p50)}/${ms(d.p99)}/${ms(d.max)}`;
  console.log(
    `Service event-loop delay (nodejs_eventloop_lag, 10-ms timer; idle reads ~10), p50/p99/max ms: alone ${loop(aloneSample)}, ` +
      `during the replay ${loop(replaySample)}`,
  );
  const p99Ratio = during.p99 / alone.p99;
  console.log(
    `\nAims: replayed events/s: ${int(perSecond)} (aim >= ${int(AIM_REPLAYED_PER_SECOND)}): ${perSecond >= AIM_REPLAYED_PER_SECOND ? 'met' : 'MISSED'}; ` +
      `live p99 during the replay / alone: ${ratio(p99Ratio)} (aim <= ${AIM_P99_RATIO}): ${p99Ratio <= AIM_P99_RATIO ? 'met' : 'MISSED'}`,
  );

  const failures: string[] = [];
  const missing = history.size - seen.replayed.size;
  if (history.size !== count) failures.push(`replay: seeded ${int(history.size)} events instead of ${int(count)}`);
  if (missing > 0) failures.push(`replay: ${int(missing)} of ${int(history.size)} replayed events never arrived (${replay?.status})`);
  if (replay && replay.events_matched !== history.size)
    failures.push(`replay: matched ${int(replay.events_matched)} events, ${int(history.size)} were seeded`);
  const liveLost = alone.committed - alone.received + (during.committed - during.received);
  if (liveLost > 0) failures.push(`replay: ${int(liveLost)} live events never arrived`);
  if (seen.state.unknown > 0) failures.push(`replay: ${int(seen.state.unknown)} deliveries of events the bench never made`);
  if (receiver.invalid > 0) failures.push(`replay: ${receiver.invalid} requests with an invalid signature`);
  if (stream.error) failures.push(`replay: the live stream stopped: ${stream.error}`);

  return {
    failures,
    notes: [
      `replayed events began arriving a block of ${REPLAY_PAGE} (in id order) every ${pageSeconds.toFixed(2)} s (median), ${int(REPLAY_PAGE / pageSeconds)}/s ` +
        `at that pace; ${int(perSecond)}/s measured`,
    ],
    figures: [
      figure('replayed events/s', side, perSecond, undefined, {
        text: `>= ${int(AIM_REPLAYED_PER_SECOND)}/s`,
        met: (value) => value >= AIM_REPLAYED_PER_SECOND,
      }),
      figure('live p50 ms during replay', side, during.p50, { side: 'live alone', value: alone.p50 }),
      figure(
        'live p99 ms during replay',
        side,
        during.p99,
        { side: 'live alone', value: alone.p99 },
        { text: `ratio <= ${AIM_P99_RATIO}`, met: (_, r) => r <= AIM_P99_RATIO },
      ),
    ],
  };
}
