import { z } from 'zod';
import { listOf } from '../common-schemas';
import { versionField } from './requested';

const example = z
  .object({
    resource: z.string().optional().meta({ description: 'The kind of resource (its `object`) the change reshapes' }),
    request: z.string().optional().meta({ description: 'The operation (operationId) whose request body the change reshapes' }),
    before: z.record(z.string(), z.unknown()).meta({ description: 'In the version before this change' }),
    after: z.record(z.string(), z.unknown()).meta({ description: 'In this version' }),
  })
  .meta({ id: 'ApiVersionChangeExample' });

export const versionResource = z
  .object({
    object: z.literal('api_version'),
    id: versionField,
    latest: z.boolean(),
    description: z.string(),
    changes: z.array(
      z
        .object({
          name: z.string(),
          title: z.string(),
          description: z.string(),
          migration: z.string().meta({ description: 'What to change when upgrading past it' }),
          examples: z.array(example),
        })
        .meta({ id: 'ApiVersionChange' }),
    ),
  })
  .meta({ id: 'ApiVersion' });
export type VersionResource = z.infer<typeof versionResource>;

export const versionList = listOf(versionResource, 'ApiVersionList');
