import { sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { quotes } from '@/db/schema';
import { newId } from '../ids';
import type { TenantCtx } from '../context';
import { estimate } from './pricing';
import { presentQuote } from './present';
import type { CreateQuoteInput, QuoteResource } from './schemas';
import { wholeSecondNow } from '../time';

export async function createQuote({ ctx, input }: { ctx: TenantCtx; input: CreateQuoteInput }): Promise<QuoteResource> {
  const e = estimate(input.pickup, input.dropoff, ctx.env);
  const now = wholeSecondNow().getTime();
  const pickupEta = now + e.pickupLeadSeconds * 1000;
  const [row] = await insertQuote(ctx.db).execute({
    id: newId(),
    partnerId: ctx.actor.partnerId,
    environment: ctx.actor.environment,
    pickupLat: input.pickup.lat,
    pickupLng: input.pickup.lng,
    dropoffLat: input.dropoff.lat,
    dropoffLng: input.dropoff.lng,
    distanceMeters: e.distanceMeters,
    feeAmount: e.feeAmount,
    feeCurrency: e.currency,
    durationSeconds: e.durationSeconds,
    pickupEta: new Date(pickupEta),
    dropoffEta: new Date(pickupEta + e.durationSeconds * 1000),
    expiresAt: new Date(now + ctx.env.QUOTE_TTL_SECONDS * 1000),
    createdAt: new Date(now),
  });
  return presentQuote(row!);
}

// The hottest insert of the API, built once per database handle: building it with Drizzle on every
// request cost ~250 us of CPU (`npm run bench -- quotes --profile`), more than the rest of the request.
const statements = new WeakMap<Executor, ReturnType<typeof prepareInsert>>();

function prepareInsert(db: Executor) {
  const p = (name: keyof typeof quotes.$inferInsert) => sql.placeholder(name);
  return db
    .insert(quotes)
    .values({
      id: p('id'),
      partnerId: p('partnerId'),
      environment: p('environment'),
      pickupLat: p('pickupLat'),
      pickupLng: p('pickupLng'),
      dropoffLat: p('dropoffLat'),
      dropoffLng: p('dropoffLng'),
      distanceMeters: p('distanceMeters'),
      feeAmount: p('feeAmount'),
      feeCurrency: p('feeCurrency'),
      durationSeconds: p('durationSeconds'),
      pickupEta: p('pickupEta'),
      dropoffEta: p('dropoffEta'),
      expiresAt: p('expiresAt'),
      createdAt: p('createdAt'),
    })
    .returning()
    .prepare('insert_quote');
}

function insertQuote(db: Executor) {
  let statement = statements.get(db);
  if (!statement) statements.set(db, (statement = prepareInsert(db)));
  return statement;
}
