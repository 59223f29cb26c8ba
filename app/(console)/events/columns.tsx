'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { Outcome } from '../../_console/deliveries/outcome';
import { IdLink, PartnerCell, ShortId, timeColumn } from '../../_console/ui/cells';
import type { EventRow } from './query';

export const columns: ColumnDef<EventRow, unknown>[] = [
  {
    header: 'Event',
    cell: ({ row }) => (
      <>
        <ShortId id={row.original.id} />
        <br />
        {row.original.type}
      </>
    ),
  },
  timeColumn('Created', (r) => r.createdAt),
  {
    header: 'About',
    cell: ({ row }) =>
      row.original.type.startsWith('order.') ? (
        <IdLink id={row.original.objectId} href={`/orders/${row.original.objectId}`} prefix="order" />
      ) : (
        <ShortId id={row.original.objectId} />
      ),
  },
  {
    header: 'Partner',
    cell: ({ row }) => <PartnerCell id={row.original.partnerId} name={row.original.partnerName} environment={row.original.environment} />,
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
              <IdLink id={d.id} href={`/deliveries/${d.id}`} label={`Delivery ${d.id} to subscription ${d.subscriptionId}`} />{' '}
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
      <details className="envelope">
        <summary>Show envelope</summary>
        <pre>{row.original.envelope}</pre>
      </details>
    ),
  },
];
