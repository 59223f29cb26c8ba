'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { useQuery } from 'urql';
import { EVENT_CATALOG } from '@/server/events/catalog';
import { Outcome } from '../../_console/deliveries/outcome';
import { graphql, type ResultOf } from '../../_console/graphql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor, type ApiError } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';

const EventsPage = graphql(`
  query EventsPage($filter: EventFilter, $after: String) {
    events(filter: $filter, first: 25, after: $after) {
      nodes {
        id
        type
        objectId
        partnerId
        environment
        createdAt
        envelope
        deliveries {
          id
          subscriptionId
          outcome
          attemptCount
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

type Row = ResultOf<typeof EventsPage>['events']['nodes'][number];
const KEYS = ['id', 'type', 'orderId', 'partnerId', 'after'] as const;
const FIELDS = [
  { key: 'id', label: 'Event id' },
  { key: 'type', label: 'Event type' },
  { key: 'orderId', label: 'Order id' },
  { key: 'partnerId', label: 'Partner id' },
] as const;

function fieldError(errors: ApiError[], key: string): string | undefined {
  return errorFor(errors, `filter.${key}`) ?? errorFor(errors, key);
}

export default function Events() {
  const [state, setState] = useUrlState(KEYS);
  const { after, ...filter } = state;
  const [{ data, error, fetching }] = useQuery({ query: EventsPage, variables: { filter, after } });
  const errors = apiErrors(error);
  return (
    <>
      <h1>Events</h1>
      <form
        key={KEYS.map((k) => state[k] ?? '').join('|')}
        className="inline filters"
        aria-label="Find events"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const text = (name: string) => (form.get(name) as string).trim() || undefined;
          setState({ id: text('id'), type: text('type'), orderId: text('orderId'), partnerId: text('partnerId'), after: undefined });
        }}
      >
        {FIELDS.map(({ key, label }) => (
          <label key={key}>
            {label}
            <input
              name={key}
              defaultValue={state[key] ?? ''}
              spellCheck={false}
              list={key === 'type' ? 'event-types' : undefined}
              aria-invalid={Boolean(fieldError(errors, key))}
            />
            {fieldError(errors, key) && <span className="error">{fieldError(errors, key)}</span>}
          </label>
        ))}
        <datalist id="event-types">
          {EVENT_CATALOG.map((e) => (
            <option key={e.type} value={e.type} />
          ))}
        </datalist>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={KEYS.flatMap((k) => [k, `filter.${k}`])} />
      <DataTable
        caption="Events of every partner, newest first, with their deliveries"
        columns={columns}
        rows={data?.events.nodes ?? []}
        empty={fetching ? 'Loading…' : 'No event matches.'}
      />
      {data && <Pager pageInfo={data.events.pageInfo} after={after} onPage={(cursor) => setState({ after: cursor })} />}
    </>
  );
}

const columns: ColumnDef<Row, unknown>[] = [
  {
    header: 'Event',
    cell: ({ row }) => (
      <>
        <code>{row.original.id}</code>
        <br />
        {row.original.type}
      </>
    ),
  },
  { header: 'Created', cell: ({ row }) => formatTime(row.original.createdAt) },
  {
    header: 'About',
    cell: ({ row }) =>
      row.original.type.startsWith('order.') ? (
        <Link href={`/orders/${row.original.objectId}`}>
          order <code>{row.original.objectId}</code>
        </Link>
      ) : (
        <code>{row.original.objectId}</code>
      ),
  },
  {
    header: 'Partner',
    cell: ({ row }) => (
      <>
        <code>{row.original.partnerId}</code> <span className="muted">{row.original.environment}</span>
      </>
    ),
  },
  {
    header: 'Deliveries',
    cell: ({ row }) =>
      row.original.deliveries.length === 0 ? (
        <span className="muted">none</span>
      ) : (
        <ul className="plain">
          {row.original.deliveries.map((d) => (
            <li key={d.id}>
              <Link href={`/deliveries/${d.id}`} aria-label={`Delivery ${d.id} to subscription ${d.subscriptionId}`}>
                <code>{d.id}</code>
              </Link>{' '}
              <Outcome value={d.outcome} />{' '}
              <span className="muted">
                ({d.attemptCount} attempt{d.attemptCount === 1 ? '' : 's'})
              </span>
            </li>
          ))}
        </ul>
      ),
  },
  {
    header: 'Envelope',
    cell: ({ row }) => (
      <details>
        <summary>Show envelope</summary>
        <pre>{row.original.envelope}</pre>
      </details>
    ),
  },
];
