import type { Ctx } from '../context';
import { parseOrThrow } from '../validation';
import { auditFilterInput, type AuditFilter } from './schemas';
import { listAuditEntries, type AuditEntry } from './list';

/** Rows per query of an export: one page in memory at a time, whatever the size of the log. */
export const EXPORT_PAGE = 500;

/**
 * The audit log matching `filter`, newest first, as pages of entries: each page one keyset query
 * after the last, so an export of a million entries holds 500 in memory. The filter is checked
 * now (a bad one throws before anything is sent), the pages are read as they are asked for.
 */
export function exportAuditLog({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { filter?: AuditFilter; pageSize?: number };
}): AsyncGenerator<AuditEntry[], void, undefined> {
  const filter = parseOrThrow(auditFilterInput, input.filter ?? {}, 'filter');
  const first = input.pageSize ?? EXPORT_PAGE;
  return (async function* pages() {
    let after: string | undefined;
    for (;;) {
      const rows = await listAuditEntries({ ctx, input: { filter, first, after } });
      const page = rows.slice(0, first);
      if (page.length > 0) yield page;
      if (rows.length <= first) return;
      after = page.at(-1)!.position;
    }
  })();
}
