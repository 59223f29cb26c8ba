'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { useQuery } from 'urql';
import { EVENT_CATALOG } from '@/server/events/catalog';
import { Outcome, ResponseStatus } from '../../_console/deliveries/outcome';
import { graphql, type ResultOf, type VariablesOf } from '../../_console/graphql';
import { ReplayPanel } from '../../_console/replays/replay-panel';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor, type ApiError } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { Pager } from '../../_console/ui/pager';
import { fromLocalInput, toLocalInput } from '../../_console/ui/time-input';
import { useUrlState } from '../../_console/ui/url-state';

// 50 a page: 100 deliveries with every attempt field is over the API's cost bound, and the log needs only the last status.
const PAGE_SIZE = 50;

const DeliveriesPage = graphql(`
  query DeliveriesPage($filter: DeliveryFilter, $first: Int!, $after: String) {
    deliveries(filter: $filter, first: $first, after: $after) {
      nodes {
        id
        eventId
        eventType
        subscriptionId
        partnerId
        environment
        orderId
        outcome
        attemptCount
        lastAttemptAt
        createdAt
        url
        attempts {
          responseStatus
          errorKind
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

type Row = ResultOf<typeof DeliveriesPage>['deliveries']['nodes'][number];
type Filter = NonNullable<VariablesOf<typeof DeliveriesPage>['filter']>;

const TEXT_FILTERS = [
  { key: 'partnerId', label: 'Partner id' },
  { key: 'subscriptionId', label: 'Subscription id' },
  { key: 'eventId', label: 'Event id' },
  { key: 'orderId', label: 'Order id' },
  { key: 'externalId', label: 'Order external id' },
] as const;
const KEYS = [
  'partnerId',
  'environment',
  'subscriptionId',
  'eventType',
  'eventId',
  'orderId',
  'externalId',
  'outcome',
  'statusClass',
  'since',
  'until',
  'after',
] as const;
type Key = (typeof KEYS)[number];

const STATUS_CLASSES = [
  ['S2XX', '2xx'],
  ['S3XX', '3xx'],
  ['S4XX', '4xx'],
  ['S5XX', '5xx'],
  ['NONE', 'no HTTP answer'],
] as const;

export default function Deliveries() {
  const [state, setState] = useUrlState(KEYS);
  const { after, ...given } = state;
  const filter = given as Filter;
  const [{ data, error, fetching }, refetch] = useQuery({ query: DeliveriesPage, variables: { filter, first: PAGE_SIZE, after } });
  const errors = apiErrors(error);
  return (
    <>
      <h1>Deliveries</h1>
      <FilterForm values={state} errors={errors} onApply={(next) => setState({ ...next, after: undefined })} />
      <ErrorList errors={errors} exceptParams={KEYS.map((k) => `filter.${k}`)} />
      {filter.subscriptionId && (
        <ReplayPanel webhookId={filter.subscriptionId} onReplayFinished={() => refetch({ requestPolicy: 'network-only' })} />
      )}
      <h2 id="log">Log</h2>
      <div aria-busy={fetching} className="table-scroll">
        <DataTable
          caption={`Deliveries, newest first, ${PAGE_SIZE} a page${filtered(state) ? ' (filtered)' : ''}`}
          columns={columns}
          rows={data?.deliveries.nodes ?? []}
          empty={fetching ? 'Loading…' : 'No delivery matches these filters.'}
        />
      </div>
      {data && <Pager pageInfo={data.deliveries.pageInfo} after={after} onPage={(cursor) => setState({ after: cursor })} />}
    </>
  );
}

function filtered(state: Partial<Record<Key, string>>): boolean {
  return Object.keys(state).some((k) => k !== 'after');
}

/** The server's message about a filter, whichever way its param is spelt. */
function filterError(errors: ApiError[], key: string): string | undefined {
  return errorFor(errors, `filter.${key}`) ?? errorFor(errors, key);
}

function FilterForm({
  values,
  errors,
  onApply,
}: {
  values: Partial<Record<Key, string>>;
  errors: ApiError[];
  onApply: (next: Partial<Record<Key, string | undefined>>) => void;
}) {
  // Keyed by the URL, so back/forward and a shared link show the filters that apply.
  const key = KEYS.map((k) => values[k] ?? '').join('|');
  return (
    <form
      key={key}
      className="inline filters"
      aria-label="Filter deliveries"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const text = (name: string) => (form.get(name) as string | null)?.trim() || undefined;
        onApply({
          partnerId: text('partnerId'),
          environment: text('environment'),
          subscriptionId: text('subscriptionId'),
          eventType: text('eventType'),
          eventId: text('eventId'),
          orderId: text('orderId'),
          externalId: text('externalId'),
          outcome: text('outcome'),
          statusClass: text('statusClass'),
          since: fromLocalInput(text('since')),
          until: fromLocalInput(text('until')),
        });
      }}
    >
      {TEXT_FILTERS.map(({ key: name, label }) => (
        <Field key={name} label={label} error={filterError(errors, name)}>
          <input name={name} defaultValue={values[name] ?? ''} aria-invalid={Boolean(filterError(errors, name))} spellCheck={false} />
        </Field>
      ))}
      <Field label="Event type" error={filterError(errors, 'eventType')}>
        <input name="eventType" list="event-types" defaultValue={values.eventType ?? ''} spellCheck={false} />
      </Field>
      <datalist id="event-types">
        {EVENT_CATALOG.map((e) => (
          <option key={e.type} value={e.type} />
        ))}
      </datalist>
      <Field label="Environment">
        <select name="environment" defaultValue={values.environment ?? ''}>
          <option value="">any</option>
          <option value="sandbox">sandbox</option>
          <option value="production">production</option>
        </select>
      </Field>
      <Field label="Outcome">
        <select name="outcome" defaultValue={values.outcome ?? ''}>
          <option value="">any</option>
          {['pending', 'succeeded', 'failed', 'skipped'].map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Last response">
        <select name="statusClass" defaultValue={values.statusClass ?? ''}>
          <option value="">any</option>
          {STATUS_CLASSES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Created from" error={filterError(errors, 'since')}>
        <input type="datetime-local" name="since" defaultValue={toLocalInput(values.since)} />
      </Field>
      <Field label="Created before" error={filterError(errors, 'until')}>
        <input type="datetime-local" name="until" defaultValue={toLocalInput(values.until)} />
      </Field>
      <button type="submit" className="primary">
        Search
      </button>
      {filtered(values) && (
        <button type="button" onClick={() => onApply(Object.fromEntries(KEYS.map((k) => [k, undefined])))}>
          Clear filters
        </button>
      )}
    </form>
  );
}

function Field({ label, error, children }: { label: string; error?: string; children: React.ReactNode }) {
  return (
    <label>
      {label}
      {children}
      {error && <span className="error">{error}</span>}
    </label>
  );
}

const columns: ColumnDef<Row, unknown>[] = [
  {
    header: 'Delivery',
    cell: ({ row }) => (
      <Link href={`/deliveries/${row.original.id}`} aria-label={`Open delivery ${row.original.id}`}>
        <code>{row.original.id}</code>
      </Link>
    ),
  },
  { header: 'Created', cell: ({ row }) => formatTime(row.original.createdAt) },
  {
    header: 'Event',
    cell: ({ row }) => (
      <>
        {row.original.eventType}
        <br />
        <Link href={`/events?id=${row.original.eventId}`}>
          <code>{row.original.eventId}</code>
        </Link>
      </>
    ),
  },
  { header: 'Outcome', cell: ({ row }) => <Outcome value={row.original.outcome} /> },
  {
    header: 'Last response',
    cell: ({ row }) => {
      const last = row.original.attempts.at(-1);
      return last ? <ResponseStatus status={last.responseStatus} errorKind={last.errorKind} /> : <span className="muted">—</span>;
    },
  },
  { header: 'Attempts', cell: ({ row }) => row.original.attemptCount },
  {
    header: 'Subscription',
    cell: ({ row }) => (
      <>
        <Link href={`/deliveries?subscriptionId=${row.original.subscriptionId}`} title="Deliveries of this subscription">
          <code>{row.original.subscriptionId}</code>
        </Link>
        <br />
        <span className="muted url">{row.original.url}</span>
        <br />
        <span className="muted">
          partner <code>{row.original.partnerId}</code>, {row.original.environment}
        </span>
      </>
    ),
  },
  {
    header: 'Order',
    cell: ({ row }) =>
      row.original.orderId ? (
        <Link href={`/orders/${row.original.orderId}`}>
          <code>{row.original.orderId}</code>
        </Link>
      ) : (
        '—'
      ),
  },
];
