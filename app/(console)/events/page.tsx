'use client';

import { useQuery } from 'urql';
import { EVENT_CATALOG } from '@/server/events/catalog';
import { refreshDelay } from '../../_console/deliveries/live';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors } from '../../_console/ui/errors';
import { FilterField, FilterForm } from '../../_console/ui/filter-form';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';
import { usePoll } from '../../_console/ui/use-poll';
import { columns } from './columns';
import { EventsPage } from './query';

const FILTERS = ['id', 'type', 'orderId', 'partnerId'] as const;
const KEYS = [...FILTERS, 'after'] as const;
const EVENT_TYPES = EVENT_CATALOG.map((e) => e.type);

export default function Events() {
  const [state, setState] = useUrlState(KEYS);
  const { after, ...filter } = state;
  const [{ data, error, fetching }, refetch] = useQuery({ query: EventsPage, variables: { filter, after } });
  // Its deliveries' outcomes, live while one is pending.
  usePoll(refetch, refreshDelay(data?.events.nodes.flatMap((e) => e.deliveries) ?? [], Date.now()));
  return (
    <>
      <h1>Events</h1>
      <FilterForm label="Find events" keys={FILTERS} errors={apiErrors(error)}>
        <FilterField name="id" label="Event id" />
        <FilterField name="type" label="Event type" suggestions={EVENT_TYPES} />
        <FilterField name="orderId" label="Order id" />
        <FilterField name="partnerId" label="Partner id" />
      </FilterForm>
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
