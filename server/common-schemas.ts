import { z } from 'zod';

// Schemas shared by several resources. `.meta({ id })` names them as OpenAPI components.

export const ulidString = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ULID');
export const unixTime = z.number().int().meta({ description: 'Unix time, seconds' });

export const money = z
  .object({
    amount: z.number().int().meta({ description: 'Integer minor units (cents)' }),
    currency: z.string().length(3).meta({ example: 'USD' }),
  })
  .meta({ id: 'Money' });

export const coordinates = z
  .strictObject({
    lat: z.number().min(-90).max(90).meta({ description: 'Latitude, decimal degrees', example: 40.7484 }),
    lng: z.number().min(-180).max(180).meta({ description: 'Longitude, decimal degrees', example: -73.9857 }),
  })
  .meta({ id: 'Coordinates' });

/** Path ids: anything that is not a ULID cannot name a resource, so the wrapper answers 404 for it. */
export const idParams = z.strictObject({ id: ulidString });

/**
 * A whole number in a query string: decimal digits only. Number() would also take `0x10`, `1e3`, ` `
 * (as 0) and `-0`; those stay text here and fail as not a number.
 */
export function queryInteger(min: number, max: number) {
  return z.preprocess((v) => (typeof v === 'string' && /^[0-9]{1,16}$/.test(v) ? Number(v) : v), z.number().int().min(min).max(max));
}

/** ?limit=&starting_after= : lists are newest first; ULIDs sort by creation, so the id is the cursor. */
export const listQuery = {
  limit: queryInteger(1, 100).default(20).meta({ description: '1 to 100, default 20' }),
  starting_after: ulidString.optional().meta({ description: 'Id of the last object of the previous page' }),
};

// 9999-12-31T23:59:59Z: beyond it, Postgres timestamps (and JavaScript Dates) give out.
const MAX_UNIX = 253_402_300_799;

export const createdRange = {
  created_gte: queryInteger(0, MAX_UNIX).optional().meta({ description: 'Created at or after (Unix seconds)' }),
  created_lte: queryInteger(0, MAX_UNIX).optional().meta({ description: 'Created at or before (Unix seconds)' }),
};

export function listOf<S extends z.ZodType>(item: S, id: string) {
  return z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() }).meta({ id });
}
