'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { timeColumn } from '../../_console/ui/cells';
import { formatTime } from '../../_console/ui/format';
import type { MailRow } from './query';

export const columns: ColumnDef<MailRow, unknown>[] = [
  timeColumn('Created', (m) => m.createdAt),
  { header: 'To', accessorKey: 'to' },
  { header: 'Subject', accessorKey: 'subject' },
  { header: 'Kind', accessorKey: 'kind' },
  {
    header: 'Status',
    cell: ({ row }) => {
      const m = row.original;
      const when = m.sentAt ? ` ${formatTime(m.sentAt)}` : '';
      if (m.status === 'queued' && m.lastError)
        return (
          <span className="status-bad">
            retrying ({m.attempts} tries): {m.lastError}
          </span>
        );
      return (
        <span className={m.status === 'failed' ? 'status-bad' : undefined}>
          {m.status}
          {when}
        </span>
      );
    },
  },
];
