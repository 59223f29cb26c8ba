'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { useQuery } from 'urql';
import { graphql, type ResultOf } from '../../_console/graphql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';

const OrdersPage = graphql(`
  query OrdersPage($filter: OrderFilter, $after: String) {
    orders(filter: $filter, first: 25, after: $after) {
      nodes {
        id
        externalId
        partnerId
        environment
        status
        createdAt
        updatedAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

type Row = ResultOf<typeof OrdersPage>['orders']['nodes'][number];
const KEYS = ['q', 'after'] as const;

export default function Orders() {
  const [state, setState] = useUrlState(KEYS);
  // One box: a ULID is an order id, anything else the partner's external id.
  const q = state.q?.trim();
  const filter = q ? (/^[0-9A-HJKMNP-TV-Z]{26}$/.test(q) ? { id: q } : { externalId: q }) : undefined;
  const [{ data, error, fetching }] = useQuery({ query: OrdersPage, variables: { filter, after: state.after } });
  const errors = apiErrors(error);
  const searchError = errorFor(errors, 'filter.id') ?? errorFor(errors, 'filter.externalId') ?? errorFor(errors, 'id');
  return (
    <>
      <h1>Orders</h1>
      <form
        key={state.q ?? ''}
        className="inline filters"
        aria-label="Find an order"
        onSubmit={(e) => {
          e.preventDefault();
          setState({ q: (new FormData(e.currentTarget).get('q') as string).trim() || undefined, after: undefined });
        }}
      >
        <label>
          Order id or external id
          <input name="q" defaultValue={state.q ?? ''} spellCheck={false} aria-invalid={Boolean(searchError)} />
          {searchError && <span className="error">{searchError}</span>}
        </label>
        <button type="submit" className="primary">
          Find
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['filter.id', 'filter.externalId', 'id']} />
      <DataTable
        caption={q ? `Orders matching ${q}` : 'Orders of every partner, newest first'}
        columns={columns}
        rows={data?.orders.nodes ?? []}
        empty={fetching ? 'Loading…' : 'No order matches.'}
      />
      {data && <Pager pageInfo={data.orders.pageInfo} after={state.after} onPage={(after) => setState({ after })} />}
    </>
  );
}

const columns: ColumnDef<Row, unknown>[] = [
  {
    header: 'Order',
    cell: ({ row }) => (
      <Link href={`/orders/${row.original.id}`} aria-label={`Timeline of order ${row.original.id}`}>
        <code>{row.original.id}</code>
      </Link>
    ),
  },
  { header: 'External id', cell: ({ row }) => row.original.externalId ?? '—' },
  { header: 'Status', accessorKey: 'status' },
  {
    header: 'Partner',
    cell: ({ row }) => (
      <>
        <code>{row.original.partnerId}</code> <span className="muted">{row.original.environment}</span>
      </>
    ),
  },
  { header: 'Created', cell: ({ row }) => formatTime(row.original.createdAt) },
  { header: 'Updated', cell: ({ row }) => formatTime(row.original.updatedAt) },
];
