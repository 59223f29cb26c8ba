import { z } from 'zod';
import { unixTime } from '../common-schemas';
import { versionField } from '../versions/requested';

export const pinResource = z
  .object({
    object: z.literal('api_version_pin'),
    livemode: z.boolean(),
    version: versionField.meta({ description: 'The version requests without X-Service-Version are rendered in' }),
    previous_version: versionField.nullable().meta({ description: 'The pin the last upgrade replaced, while a rollback can return to it' }),
    pinned_at: unixTime.meta({ description: "The environment's first request, which pinned it" }),
    changed_at: unixTime.nullable().meta({ description: 'The last upgrade or rollback' }),
    rollback_until: unixTime
      .nullable()
      .meta({ description: 'Until when POST /partner/api-version/rollback returns to previous_version (72 h after the upgrade)' }),
    latest_version: versionField,
  })
  .meta({ id: 'ApiVersionPin' });
export type PinResource = z.infer<typeof pinResource>;

export const upgradePinInput = z
  .strictObject({
    version: versionField.optional().meta({ description: 'A version newer than the pin; default the latest' }),
  })
  .meta({ id: 'ApiVersionUpgrade' });
export type UpgradePinInput = z.infer<typeof upgradePinInput>;
