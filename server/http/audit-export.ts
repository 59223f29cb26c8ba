import { z } from 'zod';
import type { AuditFilter } from '../audit/schemas';
import type { AuditEntry } from '../audit/list';
import { ValidationError } from '../errors';
import type { Logger } from '../logger';
import { parseOrThrow, storableQuery } from '../validation';
import { csvRow } from './csv';

export type ExportFormat = 'csv' | 'ndjson';

// An instant as ISO 8601 (2026-11-24T21:00:00Z) or Unix seconds, like the rest of the REST surface.
const instant = z
  .string()
  .max(40)
  .transform((text, c) => {
    const date = /^\d{1,12}$/.test(text) ? new Date(Number(text) * 1000) : new Date(text);
    if (Number.isNaN(date.getTime()) || !/^\d/.test(text)) {
      c.addIssue({ code: 'custom', message: 'not an ISO 8601 time or Unix seconds' });
      return z.NEVER;
    }
    return date;
  });

// Unknown parameters are refused: a misspelt filter (targetType for target_type) would otherwise export everything.
const exportQuery = z.strictObject({
  format: z.enum(['csv', 'ndjson']).default('csv'),
  actor: z.string().optional(),
  action: z.string().optional(),
  target_type: z.string().optional(),
  target_id: z.string().optional(),
  since: instant.optional(),
  until: instant.optional(),
});

/** `?format=csv|ndjson&actor=&action=&target_type=&target_id=&since=&until=` as the format and the verb's filter. */
export function exportQueryOf(params: URLSearchParams): { format: ExportFormat; filter: AuditFilter } {
  const duplicate = [...new Set(params.keys())].find((k) => params.getAll(k).length > 1);
  if (duplicate) throw new ValidationError([{ param: duplicate, code: 'parameter_invalid', message: `${duplicate} is given twice.` }]);
  const q = parseOrThrow(exportQuery, storableQuery(params));
  const filter = { actor: q.actor, action: q.action, targetType: q.target_type, targetId: q.target_id, since: q.since, until: q.until };
  return { format: q.format, filter: Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) };
}

const COLUMNS = ['id', 'at', 'actor', 'actor_email', 'action', 'target_type', 'target_id', 'before', 'after'] as const;

function record(e: AuditEntry) {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actor: e.actor,
    actor_email: e.actorEmail,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    before: e.before ?? null,
    after: e.after ?? null,
  };
}

function csvLine(e: AuditEntry): string {
  const r = record(e);
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return csvRow([r.id, r.at, r.actor, r.actor_email, r.action, r.target_type, r.target_id, json(r.before), json(r.after)]);
}

/**
 * The export as a download, streamed: each page of entries is formatted and sent before the next is
 * read. The first page is read before answering, so a database that is down is a 503, not an empty
 * file. A failure later cuts the download short (the connection is reset rather than ended), and is logged.
 */
export async function auditExportResponse(
  pages: AsyncGenerator<AuditEntry[], void, undefined>,
  format: ExportFormat,
  log: Logger,
  requestId: string,
): Promise<Response> {
  const first = await pages.next();
  const formatPage = format === 'csv' ? (page: AuditEntry[]) => page.map(csvLine).join('') : ndjsonOf;
  let pending: AuditEntry[] | undefined = first.done ? undefined : first.value;
  let header = format === 'csv' ? csvRow(COLUMNS) : '';
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (pending) {
          controller.enqueue(encoder.encode(header + formatPage(pending)));
          header = '';
          pending = undefined;
          return;
        }
        const next = await pages.next();
        if (next.done) {
          if (header) controller.enqueue(encoder.encode(header));
          controller.close();
        } else controller.enqueue(encoder.encode(formatPage(next.value)));
      } catch (err) {
        log.error({ request_id: requestId, err }, 'audit log export failed mid-stream');
        controller.error(err);
      }
    },
    async cancel() {
      await pages.return();
    },
  });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="audit-log-${stamp}.${format}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}

function ndjsonOf(page: AuditEntry[]): string {
  return page.map((e) => JSON.stringify(record(e)) + '\n').join('');
}
