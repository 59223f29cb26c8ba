import { exportAuditLog } from '@/server/audit/export';
import { auditExportResponse, exportQueryOf } from '@/server/http/audit-export';
import { operatorRoute } from '@/server/http/operator-route';

/**
 * The audit log as a download: `?format=csv|ndjson` (csv by default) with the console's filters
 * (actor, action, target_type, target_id, since, until). Any signed-in operator, admin or support.
 */
export const GET = operatorRoute({
  session: 'required',
  handler: async ({ request, ctx, services, requestId }) => {
    const { format, filter } = exportQueryOf(new URL(request.url).searchParams);
    return auditExportResponse(exportAuditLog({ ctx, input: { filter } }), format, services.log, requestId);
  },
});
