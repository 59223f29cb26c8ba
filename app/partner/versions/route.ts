import { partnerRoute } from '@/server/http/partner-route';
import { listVersions } from '@/server/versions/list';
import { versionList } from '@/server/versions/schemas';

export const GET = partnerRoute({
  operationId: 'listVersions',
  summary: 'List the versions of the API (the changelog)',
  description:
    "Every version, newest first, with its changes, what to do to upgrade past each, and examples before and after. Your environment's pin: GET /partner/api-version.",
  tag: 'Versions',
  response: { status: 200, schema: versionList, description: 'Every version' },
  handler: async () => listVersions(),
});
