'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import type { ColumnDef } from '@tanstack/react-table';
import { useForm } from 'react-hook-form';
import { useQuery } from 'urql';
import type { z } from 'zod';
import { AUDIT_ACTIONS, auditFilterForm } from '@/server/audit/schemas';
import { ChangesOf } from '../../_console/audit/changes';
import { graphql, type ResultOf } from '../../_console/graphql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';

const AuditLogPage = graphql(`
  query AuditLogPage($filter: AuditFilter, $after: String) {
    auditLog(filter: $filter, first: 50, after: $after) {
      nodes {
        id
        at
        actor
        actorEmail
        action
        targetType
        targetId
        before
        after
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

type Entry = ResultOf<typeof AuditLogPage>['auditLog']['nodes'][number];

// The URL's keys: the filter (times as ISO 8601) and the page's cursor.
const KEYS = ['actor', 'action', 'targetType', 'targetId', 'since', 'until', 'after'] as const;
const FIELDS = ['actor', 'action', 'targetType', 'targetId', 'since', 'until'] as const;
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

type FormIn = z.input<typeof auditFilterForm>;
type FormOut = z.output<typeof auditFilterForm>;

/** An ISO time as a datetime-local input shows it: the browser's time zone, to the minute. */
function toLocalInput(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return undefined;
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export default function AuditLog() {
  const [url, setUrl] = useUrlState(KEYS);
  const filter = Object.fromEntries(FIELDS.filter((k) => url[k]).map((k) => [k, url[k]]));
  const [{ data, error, fetching }] = useQuery({ query: AuditLogPage, variables: { filter, after: url.after ?? null } });
  const errors = apiErrors(error);

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
      {/* Keyed by the URL's filter: Back, Forward or a shared link show that filter in the form too. */}
      <FilterForm
        key={FIELDS.map((k) => url[k] ?? '').join('|')}
        url={url}
        errors={errors}
        onApply={(next) => setUrl({ ...next, after: undefined })}
      />

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

      <ErrorList errors={errors} exceptParams={FIELDS.map((k) => `filter.${k}`)} />
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

function FilterForm({
  url,
  errors,
  onApply,
}: {
  url: Partial<Record<Field, string>>;
  errors: ReturnType<typeof apiErrors>;
  onApply: (filter: Partial<Record<Field, string | undefined>>) => void;
}) {
  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(auditFilterForm),
    defaultValues: {
      actor: url.actor,
      action: url.action,
      targetType: url.targetType,
      targetId: url.targetId,
      since: toLocalInput(url.since),
      until: toLocalInput(url.until),
    },
  });
  const submit = form.handleSubmit((v) =>
    onApply({
      actor: v.actor,
      action: v.action,
      targetType: v.targetType,
      targetId: v.targetId,
      since: v.since?.toISOString(),
      until: v.until?.toISOString(),
    }),
  );
  // Blank means "any": the schema sees no field rather than an empty one.
  const blankIsAbsent = { setValueAs: (v: string | undefined) => (v?.trim() ? v : undefined) };
  const fieldError = (name: Field) => form.formState.errors[name]?.message ?? errorFor(errors, `filter.${name}`);
  const control = (name: Field, label: string, type: 'text' | 'datetime-local' = 'text', extra: Record<string, string> = {}) => (
    <label>
      {label}
      <input
        type={type}
        aria-invalid={Boolean(fieldError(name))}
        aria-describedby={fieldError(name) ? `${name}-error` : undefined}
        {...extra}
        {...form.register(name, blankIsAbsent)}
      />
      {fieldError(name) && (
        <span className="error" id={`${name}-error`}>
          {fieldError(name)}
        </span>
      )}
    </label>
  );
  return (
    <form className="inline" role="search" aria-label="Filter the audit log" onSubmit={submit} noValidate>
      {control('actor', 'Actor (e-mail, operator id or raw actor)')}
      {control('action', 'Action', 'text', { list: 'audit-actions' })}
      <datalist id="audit-actions">
        {AUDIT_ACTIONS.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      {control('targetType', 'Target type')}
      {control('targetId', 'Target id')}
      {control('since', 'From (inclusive)', 'datetime-local')}
      {control('until', 'Until (exclusive)', 'datetime-local')}
      <button type="submit" className="primary">
        Apply filters
      </button>
      <button
        type="button"
        onClick={() =>
          onApply({ actor: undefined, action: undefined, targetType: undefined, targetId: undefined, since: undefined, until: undefined })
        }
      >
        Clear filters
      </button>
    </form>
  );
}

const columns: ColumnDef<Entry, unknown>[] = [
  { header: 'When', cell: ({ row }) => <time dateTime={row.original.at}>{formatTime(row.original.at)}</time> },
  {
    header: 'Who',
    cell: ({ row }) => (
      <>
        {row.original.actorEmail ?? <code>{row.original.actor}</code>}
        {row.original.actorEmail && <div className="muted">{row.original.actor}</div>}
      </>
    ),
  },
  { header: 'What', cell: ({ row }) => <code>{row.original.action}</code> },
  {
    header: 'Target',
    cell: ({ row }) => (
      <>
        {row.original.targetType} <code>{row.original.targetId}</code>
      </>
    ),
  },
  { header: 'Changes', cell: ({ row }) => <ChangesOf before={row.original.before} after={row.original.after} /> },
];
