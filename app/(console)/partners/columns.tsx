'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { ShortId, timeColumn } from '../../_console/ui/cells';
import type { OlderVersionRow, PartnerRow } from './query';

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

/** Where a partner still speaks an older version: environments (pinned, or to be pinned at their first request) and subscriptions. */
export function olderVersionColumns(latest: string): ColumnDef<OlderVersionRow, unknown>[] {
  return [
    { header: 'Name', cell: ({ row }) => <Link href={`/partners/${row.original.id}`}>{row.original.name}</Link> },
    {
      header: 'Environments on an older version',
      cell: ({ row }) =>
        row.original.apiVersions
          .filter((p) => (p.version ?? p.firstRequestPins) < latest)
          .map((p) => (p.version ? `${p.environment} ${p.version}` : `${p.environment} ${p.firstRequestPins} (at its first request)`))
          .join(', ') || '—',
    },
    { header: 'Subscriptions on an older version', cell: ({ row }) => row.original.subscriptionsOnOlderApiVersions },
  ];
}
