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

export const idParams = z.strictObject({ id: z.string().min(1).max(64) });

export const errorEnvelope = z
  .object({
    error: z.object({
      type: z.enum(['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error', 'idempotency_error', 'api_error']),
      code: z.string().meta({ example: 'parameter_missing' }),
      message: z.string(),
      param: z.string().optional().meta({ description: 'The first invalid field, dotted (pickup.lat)' }),
      errors: z
        .array(z.object({ param: z.string(), code: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'Every invalid field, when the request had several' }),
      request_id: z.string().meta({ description: 'Equals the X-Request-Id response header' }),
    }),
  })
  .meta({ id: 'Error' });
