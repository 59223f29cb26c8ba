'use client';

import { useState } from 'react';
import { useQuery } from 'urql';
import { EVENT_CATALOG } from '@/server/events/catalog';
import { ON_THE_WAY_MS, refreshDelay, soonest } from '../../_console/deliveries/live';
import { ReplayPanel } from '../../_console/replays/replay-panel';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors } from '../../_console/ui/errors';
import { FilterField, FilterForm } from '../../_console/ui/filter-form';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';
import { usePoll } from '../../_console/ui/use-poll';
import { columns } from './columns';
import { DeliveriesPage, type DeliveryFilter } from './query';

// 50 a page: 100 deliveries with every attempt field is over the API's cost bound, and the log needs only the last status.
const PAGE_SIZE = 50;

const FILTERS = [
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
] as const;
const KEYS = [...FILTERS, 'after'] as const;

const TEXT_FILTERS = [
  { key: 'partnerId', label: 'Partner id' },
  { key: 'subscriptionId', label: 'Subscription id' },
  { key: 'eventId', label: 'Event id' },
  { key: 'orderId', label: 'Order id' },
  { key: 'externalId', label: 'Order external id' },
] as const;

const EVENT_TYPES = EVENT_CATALOG.map((e) => e.type);
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
  const filter = given as DeliveryFilter;
  const [{ data, error, fetching }, refetch] = useQuery({ query: DeliveriesPage, variables: { filter, first: PAGE_SIZE, after } });
  // Live while a row shown is pending, or while a replay of the filtered subscription moves (it reopens rows
  // this page read as ended): not after, and not while the tab is hidden.
  const [replayDelay, setReplayDelay] = useState<number | null>(null);
  const following = filter.subscriptionId && replayDelay !== null ? Math.max(replayDelay, ON_THE_WAY_MS) : null;
  usePoll(refetch, soonest(refreshDelay(data?.deliveries.nodes ?? [], Date.now()), following));
  return (
    <>
      <h1>Deliveries</h1>
      <FilterForm label="Filter deliveries" keys={FILTERS} errors={apiErrors(error)} clear="Clear filters">
        {TEXT_FILTERS.map(({ key, label }) => (
          <FilterField key={key} name={key} label={label} />
        ))}
        <FilterField name="eventType" label="Event type" suggestions={EVENT_TYPES} />
        <FilterField name="environment" label="Environment" options={['sandbox', 'production']} />
        <FilterField name="outcome" label="Outcome" options={['pending', 'succeeded', 'failed', 'skipped']} />
        <FilterField name="statusClass" label="Last response" options={STATUS_CLASSES} />
        <FilterField name="since" label="Created from" type="datetime" />
        <FilterField name="until" label="Created before" type="datetime" />
      </FilterForm>
      {filter.subscriptionId && (
        <ReplayPanel
          webhookId={filter.subscriptionId}
          onReplayFinished={() => refetch({ requestPolicy: 'network-only' })}
          onRefreshDelay={setReplayDelay}
        />
      )}
      <h2 id="log">Log</h2>
      <div aria-busy={fetching} className="table-scroll">
        <DataTable
          caption={`Deliveries, newest first, ${PAGE_SIZE} a page${FILTERS.some((k) => state[k]) ? ' (filtered)' : ''}`}
          columns={columns}
          rows={data?.deliveries.nodes ?? []}
          empty={fetching ? 'Loading…' : 'No delivery matches these filters.'}
        />
      </div>
      {data && <Pager pageInfo={data.deliveries.pageInfo} after={after} onPage={(cursor) => setState({ after: cursor })} />}
    </>
  );
}
