import { CHANGES, FIRST_VERSION, LATEST_VERSION, VERSIONS } from './registry';
import type { VersionResource } from './schemas';

const FIRST_DESCRIPTION =
  'The API as it was when versions were introduced. Partners and webhook subscriptions that existed then speak it until they upgrade.';

/** The changelog: every version, newest first, with its changes, migration notes and examples. */
export function listVersions() {
  const data: VersionResource[] = [...VERSIONS].reverse().map((id) => {
    const changes = CHANGES.filter((c) => c.version === id);
    return {
      object: 'api_version',
      id,
      latest: id === LATEST_VERSION,
      description: id === FIRST_VERSION ? FIRST_DESCRIPTION : changes.map((c) => c.title).join(' '),
      changes: changes.map((c) => ({
        name: c.name,
        title: c.title,
        description: c.description,
        migration: c.migration,
        examples: c.examples.map(({ before, after, ...which }) => ({
          ...('resource' in which ? { resource: which.resource } : { request: which.request }),
          before,
          after,
        })),
      })),
    };
  });
  return { object: 'list' as const, data, has_more: false };
}
