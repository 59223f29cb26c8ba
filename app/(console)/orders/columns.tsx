'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { IdLink, PartnerCell, timeColumn } from '../../_console/ui/cells';
import type { OrderRow } from './query';

export const columns: ColumnDef<OrderRow, unknown>[] = [
  {
    header: 'Order',
    cell: ({ row }) => <IdLink id={row.original.id} href={`/orders/${row.original.id}`} label={`Timeline of order ${row.original.id}`} />,
  },
  { header: 'External id', cell: ({ row }) => row.original.externalId ?? '—' },
  { header: 'Status', accessorKey: 'status' },
  {
    header: 'Partner',
    cell: ({ row }) => <PartnerCell id={row.original.partnerId} name={row.original.partnerName} environment={row.original.environment} />,
  },
  timeColumn('Created', (r) => r.createdAt),
  timeColumn('Updated', (r) => r.updatedAt),
];
