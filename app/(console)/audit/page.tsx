'use client';

import { useQuery } from 'urql';
import { AUDIT_ACTIONS, auditFilterForm } from '@/server/audit/schemas';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors } from '../../_console/ui/errors';
import { FilterField, FilterForm } from '../../_console/ui/filter-form';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';
import { columns } from './columns';
import { AuditLogPage } from './query';

// The URL's keys: the filter (times as ISO 8601) and the page's cursor.
const FIELDS = ['actor', 'action', 'targetType', 'targetId', 'since', 'until'] as const;
const KEYS = [...FIELDS, 'after'] as const;
type Field = (typeof FIELDS)[number];

// The export route's query parameters for the same filter.
const EXPORT_PARAM: Record<Field, string> = {
  actor: 'actor',
  action: 'action',
  targetType: 'target_type',
  targetId: 'target_id',
  since: 'since',
  until: 'until',
};

export default function AuditLog() {
  const [url, setUrl] = useUrlState(KEYS);
  const filter = Object.fromEntries(FIELDS.filter((k) => url[k]).map((k) => [k, url[k]]));
  const [{ data, error, fetching }] = useQuery({ query: AuditLogPage, variables: { filter, after: url.after ?? null } });

  const exportHref = (format: 'csv' | 'ndjson') => {
    const params = new URLSearchParams({ format });
    for (const k of FIELDS) if (url[k]) params.set(EXPORT_PARAM[k], url[k]!);
    return `/api/audit-log/export?${params}`;
  };

  return (
    <>
      <title>Audit log · Partner Delivery Platform</title>
      <h1>Audit log</h1>
      <p className="muted">Every operator action, newest first: who did what to which target, when, and what changed.</p>
      {/* Checked as typed with the server's own schema (a range the wrong way round is refused here). */}
      <FilterForm
        label="Filter the audit log"
        keys={FIELDS}
        errors={apiErrors(error)}
        schema={auditFilterForm}
        submit="Apply filters"
        clear="Clear filters"
      >
        <FilterField name="actor" label="Actor (e-mail, operator id or raw actor)" />
        <FilterField name="action" label="Action" suggestions={AUDIT_ACTIONS} />
        <FilterField name="targetType" label="Target type" />
        <FilterField name="targetId" label="Target id" />
        <FilterField name="since" label="From (inclusive)" type="datetime" />
        <FilterField name="until" label="Until (exclusive)" type="datetime" />
      </FilterForm>

      <section aria-labelledby="export" className="toolbar">
        <h2 id="export" className="visually-hidden">
          Export
        </h2>
        <span className="muted">Every entry matching these filters, not just this page:</span>
        <a className="button" href={exportHref('csv')} download>
          Export CSV
        </a>
        <a className="button" href={exportHref('ndjson')} download>
          Export NDJSON
        </a>
      </section>

      <div aria-busy={fetching}>
        <DataTable
          caption={url.after ? 'Audit entries (a later page)' : 'Audit entries, newest first'}
          columns={columns}
          rows={data?.auditLog.nodes ?? []}
          empty={fetching ? 'Loading…' : 'No entry matches these filters.'}
        />
      </div>
      {data && <Pager pageInfo={data.auditLog.pageInfo} after={url.after} onPage={(after) => setUrl({ after })} />}
    </>
  );
}
