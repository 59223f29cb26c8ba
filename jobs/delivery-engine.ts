import { hostname } from 'node:os';
import type { Ctx, Deps } from '@/server/context';
import { newId } from '@/server/ids';
import { attemptDelivery, USER_AGENT, type AttemptOutcome } from '@/server/delivery/send-attempt';
import { releaseClaims, renewClaims, returnExpiredClaims } from '@/server/delivery/leases';
import type { ClaimedAttempt } from '@/server/delivery/claimed-attempt';
import { CONNECTIONS_PER_ORIGIN, createWebhookClient, type WebhookClient } from '@/server/delivery/http-client';
import { answerOf, InFlightLimit } from '@/server/delivery/in-flight-limit';
import { recordOutcomes, type RecordResult } from '@/server/delivery/record-outcomes';
import { beat, leave } from '@/server/workers/heartbeat';
import { BackloggedRate } from './backlogged-rate';
import { jobContext } from './definition';

// A worker process holds at most MAX_HELD attempts (waiting, in flight, or awaiting their record);
// fetching more waits until there is room. Bounds memory, not fairness: fairness is per subscription.
const MAX_HELD = 5000;
// A subscription's attempts wait here up to twice its share of MAX_HELD, its share being its part of
// the process's recent throughput (at least MIN_WAITING, and MIN_WAITING until its pace is known);
// past that, new ones go back to the queue for a second, so a slow subscription, whose share is small,
// cannot fill the process. A fixed 200 sent most of a burst's attempts back when every subscription
// kept up and the process was merely busy (46,623 deliver jobs for 60,000 deliveries, `npm run bench
// -- bursts`); each came back through a second claim a second later, and every burst ran slower than
// the one before (1,059, 706, 396 deliveries/s). Subscriptions that keep up now share the process,
// and it stops fetching at MAX_HELD before any of them overflows.
const MIN_WAITING = 200;
const PACE_WINDOW_MS = 100;
const HEARTBEAT_MS = 5000;
// How long a subscription's in-flight limit is kept without an answer (see heartbeat).
const LIMIT_MEMORY_MS = 60_000;
// A subscription's limit grows only while this worker has fewer attempts in flight to its origin than it keeps
// connections there (CONNECTIONS_PER_ORIGIN), and falls back toward the base when they are all busy: past them, more
// only wait inside the client, their time counted against the receiver. Without this, a burst to 10 subscriptions of
// one receiver grew every limit and ran a quarter slower than with 10 each (bench delivery, alternating with the code
// before, load 1-4: 1,095 against 1,469 and 1,526 against 1,985 deliveries/s; growing only below the connections,
// 1,478 against 1,925).
// A claim older than this share of WEBHOOK_CLAIM_SECONDS is confirmed before its attempt is sent, and a
// renewal this long after the last one is late. Renewals come every third of a claim, so only a stalled
// event loop or a slow database gets there: a 6 s freeze (SIGSTOP, test/webhooks/stall.test.ts) of a
// worker with 3 s claims found its renewals about 5 s late.
const LATE_SHARE_OF_CLAIM = 1 / 2;
// What a replay keeps here ahead of its receiver (replayRoom): about a second of the subscription's
// pace of 2xx answers, within these bounds (a receiver that refuses gets no more than the least,
// and the page after it backs off). Paced by a count of its pending deliveries in the database and a deliver
// job per event, a 30,000-event replay ran at 200 events/s (bench at load 8-10, 2026-11-26: a page of
// 200 every 0.9 s); a page claimed straight into the engine and sized by what the receiver took in
// the last second needs neither.
const REPLAY_AHEAD_SECONDS = 1;
const REPLAY_AHEAD_MIN = 200;
const REPLAY_AHEAD_MAX = 1000;

/**
 * How a worker process makes webhook attempts. Fan-out and deliver jobs hand it claimed attempts
 * and complete at once; each attempt starts when its subscription has room (its share, across the live
 * workers, of its in-flight limit, which follows its receiver: server/delivery/in-flight-limit.ts) and is recorded as it ends, with
 * whatever else ended meanwhile, in one write. So a slow endpoint holds only its own slots, never a
 * batch of other partners' deliveries.
 *
 * Every attempt it holds stays claimed in the database, in its name: it renews the claims while it
 * holds them, and if it dies they lapse and any worker's sweeper returns them to the queue. If it
 * only stalls (its event loop blocked, renewals late), the others leave its claims alone while its
 * heartbeat is fresh; a longer stall loses them, and then it neither sends those attempts nor records
 * them (server/delivery/leases.ts).
 */
export class DeliveryEngine {
  private readonly ctx: Ctx;
  /** This worker's heartbeat id, and the holder of every claim it makes. */
  readonly holder = `${hostname()}:${process.pid}:${newId()}`;
  private readonly claimMs: number;
  private readonly waiting = new Map<string, ClaimedAttempt[]>();
  private readonly running = new Map<string, number>();
  private readonly replaying = new Map<string, number>();
  /** Finished attempts awaiting their record, by subscription. */
  private readonly unrecorded = new Map<string, number>();
  /** The pace of this process, and of each subscription it has sent to. */
  private readonly pace = new BackloggedRate();
  private readonly paceOf = new Map<string, BackloggedRate>();
  /** Each subscription's pace of attempts its receiver answered 2xx: what a replay sizes its pages by. */
  private readonly deliveredPaceOf = new Map<string, BackloggedRate>();
  /**
   * Deliveries held (by id: its event and the attempt): waiting, in flight, or done and not yet recorded. Their claims
   * are renewed. The attempt tells a delivery's next attempt from the one before it, which a replay or redeliver can
   * claim between the record of the one before and its release here (see accept).
   */
  private readonly held = new Map<string, { eventId: string; attempt: number; subscriptionId: string; replay: boolean }>();
  /** Held replayed attempts, by subscription. */
  private readonly replayHeld = new Map<string, number>();
  /**
   * When each held claim was last made or renewed: performance.now() before the statement was sent, so
   * the claim lasts WEBHOOK_CLAIM_SECONDS of the database's clock from no earlier than that, whatever the
   * two clocks read.
   */
  private readonly leases = new Map<string, number>();
  /** In flight when a renewal found their claims taken: their outcomes will not be recorded here. */
  private readonly lost = new Set<string>();
  /** When the last renewal that reached the database was sent. */
  private renewedAt = performance.now();
  private renewing: Promise<void> | undefined;
  /** Attempts being sent, by delivery id. */
  private readonly sending = new Map<string, ClaimedAttempt>();
  /** Cut off by stop() at its deadline: their outcomes are dropped and their claims released. */
  private readonly abandoned = new Set<string>();
  private done: AttemptOutcome[] = [];
  private flushing: Promise<void> | undefined;
  private inFlight = 0;
  /** Each subscription's in-flight limit, while it differs from the base or has attempts here. */
  private readonly limits = new Map<string, InFlightLimit>();
  /** Worker processes alive at the last heartbeat, this one included: each takes an equal share of a limit. */
  private liveWorkers = 1;
  /** Attempts in flight by origin (scheme, host and port of the subscription's URL), and the origin of each URL seen. */
  private readonly runningToOrigin = new Map<string, number>();
  private readonly originOf = new Map<string, string>();
  private roomWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;

  constructor(
    deps: Deps,
    private readonly client: WebhookClient,
    private readonly options: EngineOptions = { sendsLive: true },
  ) {
    this.ctx = jobContext(deps, 'webhooks.deliver');
    this.claimMs = deps.env.WEBHOOK_CLAIM_SECONDS * 1000;
  }

  async start(): Promise<void> {
    await this.heartbeat();
    const { env } = this.ctx;
    this.renewedAt = performance.now();
    this.every(HEARTBEAT_MS, () => this.heartbeat());
    const sampling = setInterval(() => this.samplePace(), PACE_WINDOW_MS);
    this.timers.push(sampling);
    this.every(this.claimMs / 3, () => this.renew());
    this.every(env.WEBHOOK_SWEEP_INTERVAL_MS, async () => {
      const returned = await returnExpiredClaims(this.ctx, { holder: this.holder, holds: [...this.held.keys()] });
      if (returned > 0) this.ctx.log.warn({ returned }, 'returned webhook attempts whose worker died or dropped them');
    });
  }

  /** Resolves when this process holds few enough attempts to take another batch. */
  waitForRoom(): Promise<void> {
    if (this.held.size < MAX_HELD) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /**
   * Takes attempts claimed in this worker's name (`holder`); each starts when its subscription has room,
   * in the order given. `claimedAt`: performance.now() before the claiming statement was sent.
   */
  async accept(claimed: ClaimedAttempt[], claimedAt: number): Promise<void> {
    const overflow: string[] = [];
    const touched = new Set<string>();
    for (const attempt of claimed) {
      // A duplicate job for an attempt held here is dropped. A later attempt of a delivery still held is taken: the
      // one before was recorded (a claim needs that) and only its release here is to come. Dropping it left the
      // delivery claimed and unsent until its claim lapsed (a replay right after a live delivery waited 30 s).
      if ((this.held.get(attempt.id)?.attempt ?? 0) >= attempt.attempt) continue;
      const queue = this.waiting.get(attempt.subscription_id) ?? [];
      if (this.stopping || queue.length >= this.waitingCap(attempt.subscription_id)) {
        overflow.push(attempt.id);
        continue;
      }
      this.unheld(attempt.id);
      const replay = attempt.trigger === 'replay';
      this.held.set(attempt.id, { eventId: attempt.event_id, attempt: attempt.attempt, subscriptionId: attempt.subscription_id, replay });
      if (replay) this.replayHeld.set(attempt.subscription_id, (this.replayHeld.get(attempt.subscription_id) ?? 0) + 1);
      this.leases.set(attempt.id, claimedAt);
      queue.push(attempt);
      this.waiting.set(attempt.subscription_id, queue);
      touched.add(attempt.subscription_id);
    }
    for (const subscription of touched) this.pump(subscription);
    if (overflow.length > 0) await releaseClaims(this.ctx, this.holder, overflow, 1);
  }

  /**
   * Stops taking attempts: those still waiting go back to the queue for another worker at once,
   * those in flight get until the deadline to end and be recorded. Those still in flight at the
   * deadline are aborted and go back to the queue unrecorded (their claims released, so another
   * worker sends them at once rather than after the claim lapses): every attempt is recorded
   * completely or not at all.
   */
  async stop(deadlineMs = 5000): Promise<EngineDrain> {
    this.stopping = true;
    const inFlightAtStop = this.sending.size;
    const unsent = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const attempt of unsent) this.forget(attempt.id);
    // Fetch loops waiting for room would only hand over attempts that accept() gives back.
    for (const resolve of this.roomWaiters.splice(0)) resolve();
    await releaseClaims(
      this.ctx,
      this.holder,
      unsent.map((a) => a.id),
    ).catch((err: unknown) => this.ctx.log.warn({ err }, 'could not return unsent webhook attempts; their claims will lapse'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadlineMs))))]);
    clearTimeout(timer);
    // Past the deadline: what is still in flight is abandoned before it is aborted, so its (aborted)
    // outcome is never recorded; outcomes already in hand are written first.
    const abandoned = [...this.sending.keys()];
    for (const id of abandoned) this.abandoned.add(id);
    if (abandoned.length > 0) await this.client.destroy().catch(() => {});
    while (this.flushing) await this.flushing;
    let released = 0;
    if (abandoned.length > 0) {
      released = await releaseClaims(this.ctx, this.holder, abandoned).catch((err: unknown) => {
        this.ctx.log.warn({ err }, 'could not return webhook attempts cut off at the deadline; their claims will lapse');
        return 0;
      });
      for (const id of abandoned) this.forget(id);
    }
    for (const timer of this.timers) clearInterval(timer);
    await this.renewing;
    await leave(this.ctx, this.holder).catch(() => {});
    await this.client.close().catch(() => {});
    return { returnedUnsent: unsent.length, inFlightAtStop, finished: inFlightAtStop - abandoned.length, released };
  }

  /**
   * How many replayed attempts of a subscription this process takes now: a replay's page claims that many in its
   * name (server/replays/run-page.ts). It keeps about REPLAY_AHEAD_SECONDS of the subscription's pace of 2xx answers held (waiting,
   * in flight or awaiting their record), never more than its waiting cap less MIN_WAITING / 2 (the room its live
   * attempts keep) nor what the process has room for; 0 until half of that is free, so pages stay large.
   */
  replayRoom(subscriptionId: string): number {
    if (this.stopping) return 0;
    const pace = this.deliveredPaceOf.get(subscriptionId)?.perSecond ?? 0;
    const ahead = Math.min(
      Math.max(REPLAY_AHEAD_MIN, Math.min(REPLAY_AHEAD_MAX, Math.round(pace * REPLAY_AHEAD_SECONDS))),
      this.waitingCap(subscriptionId) - MIN_WAITING / 2,
    );
    const room = Math.min(ahead - (this.replayHeld.get(subscriptionId) ?? 0), MAX_HELD - this.held.size);
    return room >= ahead / 2 ? room : 0;
  }

  /** Attempts being sent right now. */
  get inFlightCount(): number {
    return this.sending.size;
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      this.settleIdle();
    });
  }

  /** Resolves whoever waits for idle (stop) once nothing is in flight or awaiting its record. */
  private settleIdle(): void {
    if (this.inFlight === 0 && this.done.length === 0 && !this.flushing) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  // Replayed attempts leave a quarter of a subscription's share (at least one slot) to live ones, so a
  // backfill never holds the slots its live deliveries need; live attempts take any free slot, ahead of
  // replayed ones waiting (replayShare).
  // A subscription also waits while a share's worth of its finished attempts await their record: a
  // process that dies re-sends what it had sent and not recorded, so that is at most twice its share
  // (a 2-worker test once saw 6 re-sends of a 5 ms endpoint behind one slow write, bound 4).
  // An attempt whose claim is older than half a claim (the process stalled) waits for a renewal to
  // confirm it still holds it: another worker may have taken it over and be sending it.
  private pump(subscriptionId: string): void {
    const queue = this.waiting.get(subscriptionId);
    if (!queue) return;
    let running = this.running.get(subscriptionId) ?? 0;
    let replaying = this.replaying.get(subscriptionId) ?? 0;
    const share = this.shareOf(subscriptionId);
    // An engine that sends no live attempts (the replay thread's) keeps no slots for them: another engine sends them.
    const replayShare = this.options.sendsLive ? replaySlots(share) : share;
    const unrecorded = this.unrecorded.get(subscriptionId) ?? 0;
    for (let i = 0; i < queue.length && running < share && running + unrecorded < 2 * share;) {
      const attempt = queue[i]!;
      // A replayed attempt also leaves the live ones their part of the bound on sent-and-unrecorded attempts: when
      // records lag, that bound, not the slots, is what frees, and replayed attempts ahead in the queue took it
      // (live p50 290-620 ms over a replay's first 5 s, 60-130 ms with this; bench replay, 20,000 events).
      if (attempt.trigger === 'replay' && (replaying >= replayShare || running + unrecorded >= 2 * share - (share - replayShare))) {
        i++;
        continue;
      }
      if (!this.claimConfirmed(attempt.id)) {
        void this.renew();
        break;
      }
      queue.splice(i, 1);
      running++;
      if (attempt.trigger === 'replay') replaying++;
      void this.run(attempt);
    }
    this.running.set(subscriptionId, running);
    if (replaying > 0) this.replaying.set(subscriptionId, replaying);
    if (queue.length === 0) this.waiting.delete(subscriptionId);
  }

  /**
   * Whether an attempt may go on the wire: its claim was made or renewed within half a claim. Older, the process
   * stalled, and another worker may have taken the attempt over and be sending it; a renewal says which. Asked
   * before an attempt starts and again as its request is about to be written (http-client.ts `mayWrite`).
   */
  private claimConfirmed(id: string): boolean {
    return performance.now() - (this.leases.get(id) ?? -Infinity) <= this.claimMs * LATE_SHARE_OF_CLAIM;
  }

  /**
   * An attempt whose request was not written (its claim unconfirmed as it was about to go out): it waits at the
   * head of its queue for the renewal, which sends it if the claim is still this worker's and drops it if not.
   */
  private withhold(attempt: ClaimedAttempt): void {
    if (this.stopping) {
      // stop() gave the waiting ones back already; this one goes the same way.
      void releaseClaims(this.ctx, this.holder, [attempt.id])
        .catch((err: unknown) => this.ctx.log.warn({ err }, 'could not return a withheld webhook attempt; its claim will lapse'))
        .finally(() => {
          this.forget(attempt.id, attempt.attempt);
          this.settleIdle();
        });
      return;
    }
    this.waiting.set(attempt.subscription_id, [attempt, ...(this.waiting.get(attempt.subscription_id) ?? [])]);
    void this.renew();
  }

  /** This process's part of a subscription's in-flight limit: an equal share among the live workers, at least one. */
  private shareOf(subscriptionId: string): number {
    const limit = this.limits.get(subscriptionId)?.value ?? this.baseLimit();
    return Math.max(1, Math.floor(limit / this.liveWorkers));
  }

  private baseLimit(): number {
    return InFlightLimit.starting(
      this.ctx.env.WEBHOOK_BASE_IN_FLIGHT_PER_SUBSCRIPTION,
      this.ctx.env.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION,
    );
  }

  /** An answer moves the subscription's limit; one back at the base with nothing waiting is forgotten. */
  private learn(attempt: ClaimedAttempt, outcome: AttemptOutcome): void {
    const subscriptionId = attempt.subscription_id;
    const backlogged = (this.waiting.get(subscriptionId)?.length ?? 0) > 0;
    let limit = this.limits.get(subscriptionId);
    if (!limit) {
      limit = new InFlightLimit(this.ctx.env.WEBHOOK_BASE_IN_FLIGHT_PER_SUBSCRIPTION, this.ctx.env.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION);
      this.limits.set(subscriptionId, limit);
    }
    // Room to grow: attempts wait for this subscription's slots, and this worker has a free connection to its origin.
    const toOrigin = this.runningToOrigin.get(this.origin(attempt)) ?? 0;
    limit.answered(answerOf(outcome.outcome), backlogged && toOrigin < CONNECTIONS_PER_ORIGIN, {
      crowded: toOrigin >= CONNECTIONS_PER_ORIGIN,
    });
    if (limit.atBase && !backlogged) this.limits.delete(subscriptionId);
  }

  /** The origin an attempt goes to, as the client pools its connections (by URL: a subscription's URL can change). */
  private origin(attempt: ClaimedAttempt): string {
    let origin = this.originOf.get(attempt.url);
    if (origin === undefined) {
      try {
        origin = new URL(attempt.url).origin;
      } catch {
        origin = attempt.url;
      }
      // Bounded: the URLs of every subscription, and of their changes since the last clear.
      if (this.originOf.size >= 10_000) this.originOf.clear();
      this.originOf.set(attempt.url, origin);
    }
    return origin;
  }

  /** How many of a subscription's attempts may wait here (MIN_WAITING until its pace is known). */
  private waitingCap(subscriptionId: string): number {
    const own = this.paceOf.get(subscriptionId)?.perSecond;
    const all = this.pace.perSecond;
    return own === undefined || !all ? MIN_WAITING : Math.max(MIN_WAITING, (2 * MAX_HELD * own) / all);
  }

  private subscriptionPace(subscriptionId: string, of = this.paceOf): BackloggedRate {
    let pace = of.get(subscriptionId);
    if (!pace) of.set(subscriptionId, (pace = new BackloggedRate()));
    return pace;
  }

  private samplePace(): void {
    this.pace.sample(this.waiting.size > 0);
    for (const [subscription, pace] of this.paceOf) pace.sample(this.waiting.has(subscription));
    for (const [subscription, pace] of this.deliveredPaceOf) pace.sample(this.waiting.has(subscription));
  }

  private async run(attempt: ClaimedAttempt): Promise<void> {
    this.inFlight++;
    this.sending.set(attempt.id, attempt);
    const origin = this.origin(attempt);
    this.runningToOrigin.set(origin, (this.runningToOrigin.get(origin) ?? 0) + 1);
    const outcome = await attemptDelivery(this.ctx, attempt, this.client, () => this.claimConfirmed(attempt.id));
    this.sending.delete(attempt.id);
    this.inFlight--;
    decrement(this.runningToOrigin, origin);
    decrement(this.running, attempt.subscription_id);
    if (attempt.trigger === 'replay') decrement(this.replaying, attempt.subscription_id);
    if (this.abandoned.has(attempt.id)) {
      this.settleIdle();
      return;
    }
    if ('withheld' in outcome) return this.withhold(attempt);
    this.pace.done();
    this.subscriptionPace(attempt.subscription_id).done();
    this.learn(attempt, outcome);
    const answer = outcome.outcome;
    if (answer?.kind === 'response' && answer.status >= 200 && answer.status < 300) {
      this.subscriptionPace(attempt.subscription_id, this.deliveredPaceOf).done();
    }
    this.done.push(outcome);
    this.unrecorded.set(attempt.subscription_id, (this.unrecorded.get(attempt.subscription_id) ?? 0) + 1);
    this.flushSoon();
    if (!this.stopping) this.pump(attempt.subscription_id);
  }

  // Outcomes are written when the writer is idle, and batch up while it is busy: a quiet system
  // records each attempt at once, a busy one in few statements.
  private flushSoon(): void {
    if (this.flushing) return;
    this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  private async flush(): Promise<void> {
    while (this.done.length > 0) {
      const batch = this.done;
      this.done = [];
      try {
        this.report(batch, await recordOutcomes(this.ctx, this.holder, batch));
      } catch (error) {
        // recordOutcomes handles each delivery's failure itself; this is the unforeseen, logged and left to the sweeper.
        this.ctx.log.error({ deliveries: batch.length, err: error }, 'recording webhook attempts failed; their claims will lapse');
      }
      // Recorded, or left to lapse and be swept: either way no longer renewed by this process.
      const subscriptions = new Set<string>();
      for (const { claimed } of batch) {
        this.forget(claimed.id, claimed.attempt);
        decrement(this.unrecorded, claimed.subscription_id);
        subscriptions.add(claimed.subscription_id);
      }
      if (!this.stopping) for (const subscription of subscriptions) this.pump(subscription);
      this.wakeRoomWaiters();
    }
    this.flushing = undefined;
    this.settleIdle();
  }

  // A counter bump and two histogram observations per attempt, after its record was written.
  private report(batch: AttemptOutcome[], { results }: RecordResult): void {
    const metrics = this.ctx.metrics;
    if (!metrics) return;
    for (const { claimed, startedAt, outcome } of batch) {
      const result = results.get(claimed.id) ?? 'unrecorded';
      const errorKind = !outcome
        ? 'none'
        : outcome.kind === 'response'
          ? outcome.status >= 200 && outcome.status < 300
            ? 'none'
            : 'http_status'
          : outcome.errorKind;
      const due = claimed.trigger === 'scheduled' && claimed.due_at ? new Date(claimed.due_at).getTime() : undefined;
      const lag = due === undefined || Number.isNaN(due) ? undefined : Math.max(0, startedAt.getTime() - due) / 1000;
      metrics.attempt(result, errorKind, claimed.trigger, claimed.api_version, outcome ? outcome.durationMs / 1000 : undefined, lag);
      if (result === 'succeeded' || result === 'failed' || result === 'skipped') metrics.delivery(result, claimed.api_version);
    }
  }

  /** No longer held: recorded, given back, or left to lapse and be swept. */
  private forget(id: string, attempt?: number): void {
    // The release of an attempt whose delivery's next attempt is already held here keeps that one.
    if (attempt !== undefined && this.held.get(id)?.attempt !== attempt) return;
    this.unheld(id);
    this.leases.delete(id);
    this.lost.delete(id);
  }

  private unheld(id: string): void {
    const held = this.held.get(id);
    if (held?.replay) decrement(this.replayHeld, held.subscriptionId);
    this.held.delete(id);
  }

  /** Renews every held claim now, or joins the renewal under way; never rejects (a failure is logged). */
  private renew(): Promise<void> {
    this.renewing ??= this.renewHeld()
      .then(
        () => {
          if (!this.stopping) for (const subscription of [...this.waiting.keys()]) this.pump(subscription);
        },
        (err: unknown) => this.ctx.log.warn({ err }, 'delivery engine upkeep failed: claims not renewed'),
      )
      .finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /**
   * One renewal, and what it found: a renewal late by more than half a claim is logged and counted,
   * and the attempts whose claims another worker took meanwhile are let go: those waiting are dropped
   * unsent, those in flight end without a record (recordOutcomes answers `lost` for them).
   */
  private async renewHeld(): Promise<void> {
    const sentAt = performance.now();
    const ids = [...this.held.keys()];
    if (ids.length === 0) {
      this.renewedAt = sentAt;
      return;
    }
    const since = sentAt - this.renewedAt;
    if (since > this.claimMs * LATE_SHARE_OF_CLAIM) {
      const lateMs = Math.round(since - this.claimMs / 3);
      this.ctx.log.warn(
        { late_ms: lateMs, claims: ids.length, claim_seconds: this.claimMs / 1000 },
        `renewals late by ${lateMs} ms; claims may have lapsed`,
      );
      this.ctx.metrics?.claimRenewalLate();
    }
    const kept = await renewClaims(this.ctx, this.holder, new Map([...this.held].map(([id, h]) => [id, h.eventId])));
    this.renewedAt = sentAt;
    const taken = new Set<string>();
    for (const id of ids) {
      if (!this.held.has(id)) continue;
      if (kept.has(id)) {
        this.leases.set(id, Math.max(sentAt, this.leases.get(id) ?? sentAt));
        this.lost.delete(id);
      } else taken.add(id);
    }
    if (taken.size === 0) return;
    let dropped = 0;
    for (const [subscription, queue] of this.waiting) {
      const left = queue.filter((a) => !taken.has(a.id));
      if (left.length === queue.length) continue;
      for (const a of queue) {
        if (!taken.has(a.id)) continue;
        this.forget(a.id);
        dropped++;
      }
      if (left.length > 0) this.waiting.set(subscription, left);
      else this.waiting.delete(subscription);
    }
    // Those finished and awaiting their record are left to it: it writes only what this worker still holds.
    let inFlight = 0;
    for (const id of taken) {
      if (!this.sending.has(id) || this.lost.has(id)) continue;
      this.lost.add(id);
      inFlight++;
    }
    if (dropped + inFlight > 0) {
      this.ctx.log.warn(
        { lost: dropped + inFlight, waiting: dropped, in_flight: inFlight },
        'claims lost: another worker took these attempts over while renewals were late; they are not sent or recorded here',
      );
    }
    this.wakeRoomWaiters();
  }

  private wakeRoomWaiters(): void {
    while (this.roomWaiters.length > 0 && this.held.size < MAX_HELD) this.roomWaiters.shift()!();
  }

  private async heartbeat(): Promise<void> {
    // The in-flight bound holds across workers: each takes an equal share of a limit (shareOf).
    this.liveWorkers = Math.max(1, await beat(this.ctx, this.holder));
    // A receiver's capacity changes while nothing is sent to it: as TCP after an idle period, start again from the base.
    const stale = performance.now() - LIMIT_MEMORY_MS;
    for (const [subscriptionId, limit] of this.limits) if (limit.answeredAt < stale) this.limits.delete(subscriptionId);
  }

  private every(ms: number, fn: () => Promise<unknown>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      fn()
        .catch((err: unknown) => this.ctx.log.warn({ err }, 'delivery engine upkeep failed'))
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}

export interface EngineOptions {
  /** False for an engine that only sends replayed attempts (a process working only `webhooks.replay-page`). */
  sendsLive: boolean;
}

/** What a stopping engine did with the attempts it held. */
export interface EngineDrain {
  /** Waiting for their subscription's room: given back unsent at once. */
  returnedUnsent: number;
  inFlightAtStop: number;
  /** In flight at the stop, ended and recorded before the deadline. */
  finished: number;
  /** In flight at the deadline: aborted, unrecorded, and given back to the queue. */
  released: number;
}

const engines = new WeakMap<Deps, DeliveryEngine>();

/** Starts this worker process's engine (server/boot does, for processes that run workers). */
export async function startDeliveryEngine(deps: Deps, options: EngineOptions = { sendsLive: true }): Promise<DeliveryEngine> {
  const client = createWebhookClient({
    resolve: (host) => deps.resolver(host),
    allowPrivate: deps.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    timeoutMs: deps.env.WEBHOOK_TIMEOUT_MS,
    userAgent: USER_AGENT,
  });
  const engine = new DeliveryEngine(deps, client, options);
  await engine.start();
  engines.set(deps, engine);
  return engine;
}

export function deliveryEngineOf(deps: Deps): DeliveryEngine {
  const engine = engines.get(deps);
  if (!engine) throw new Error('the delivery engine is not started in this process');
  return engine;
}

/** Counts by subscription keep only keys above zero. */
function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/**
 * The in-flight slots of a subscription's share that replayed attempts may take. Half of them held a
 * 100,000-event backfill to 871 events/s (5 of 10 in flight) while live events beside it needed
 * one slot at a time (50/s, answered in milliseconds); a quarter kept for them is enough, since any
 * slot that frees goes to a live attempt first.
 */
export function replaySlots(share: number): number {
  return Math.max(1, share - Math.max(1, Math.floor(share / 4)));
}
