'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { ShortId, timeColumn } from '../../_console/ui/cells';
import type { PartnerRow } from './query';

export const columns: ColumnDef<PartnerRow, unknown>[] = [
  { header: 'Name', cell: ({ row }) => <Link href={`/partners/${row.original.id}`}>{row.original.name}</Link> },
  { header: 'ID', cell: ({ row }) => <ShortId id={row.original.id} /> },
  { header: 'Go-live', cell: ({ row }) => row.original.goLive.status.replace('_', ' ') },
  {
    header: 'Rate limit',
    cell: ({ row }) => `${row.original.rateLimit.perSecond}/s${row.original.rateLimit.override === null ? ' (default)' : ''}`,
  },
  timeColumn('Created', (r) => r.createdAt),
];
