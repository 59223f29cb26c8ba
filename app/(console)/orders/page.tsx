'use client';

import { useQuery } from 'urql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors } from '../../_console/ui/errors';
import { FilterField, FilterForm } from '../../_console/ui/filter-form';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';
import { columns } from './columns';
import { OrdersPage } from './query';

const KEYS = ['q', 'after'] as const;

export default function Orders() {
  const [state, setState] = useUrlState(KEYS);
  // One box: a ULID is an order id, anything else the partner's external id.
  const q = state.q?.trim();
  const filter = q ? (/^[0-9A-HJKMNP-TV-Z]{26}$/.test(q) ? { id: q } : { externalId: q }) : undefined;
  const [{ data, error, fetching }] = useQuery({ query: OrdersPage, variables: { filter, after: state.after } });
  return (
    <>
      <h1>Orders</h1>
      <FilterForm
        label="Find an order"
        keys={['q']}
        errors={apiErrors(error)}
        submit="Find"
        // The box is the server's id or externalId, whichever it was read as.
        paramsOf={() => ['filter.id', 'filter.externalId', 'id']}
      >
        <FilterField name="q" label="Order id or external id" />
      </FilterForm>
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
