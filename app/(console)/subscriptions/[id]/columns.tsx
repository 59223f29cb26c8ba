'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { IdLink, timeColumn } from '../../../_console/ui/cells';
import type { NoticeRow } from './notices';

const STAGE_TEXT: Record<NoticeRow['stage'], string> = {
  failing: 'failing',
  warning_50: 'warning: 50 % of the way to auto-disable',
  warning_90: 'warning: 90 % of the way to auto-disable',
  disabled: 'disabled',
  recovered: 'recovered',
};

/** One row per thing a notice sent: each mail, and its event's delivery to each subscription. */
export const noticeColumns: ColumnDef<NoticeRow, unknown>[] = [
  { header: 'Stage', cell: ({ row }) => STAGE_TEXT[row.original.stage] },
  { header: 'Channel', cell: ({ row }) => (row.original.channel === 'email' ? 'e-mail' : 'event') },
  {
    header: 'To',
    cell: ({ row }) => {
      const r = row.original;
      if (r.channel === 'email') return r.to;
      return r.to ? (
        <IdLink id={r.to} href={`/subscriptions/${r.to}`} prefix="subscription" />
      ) : (
        <span className="muted">no subscription asks for it</span>
      );
    },
  },
  timeColumn('When', (r) => r.at),
  { header: 'Status', accessorKey: 'status' },
  timeColumn('Streak began', (r) => r.streakSince),
];
