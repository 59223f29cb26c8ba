'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { ChangesOf } from '../../_console/audit/changes';
import { timeColumn } from '../../_console/ui/cells';
import type { AuditEntry } from './query';

export const columns: ColumnDef<AuditEntry, unknown>[] = [
  timeColumn('When', (e) => e.at),
  {
    header: 'Who',
    cell: ({ row }) => (
      <>
        {row.original.actorEmail ?? <code>{row.original.actor}</code>}
        {row.original.actorEmail && <div className="muted">{row.original.actor}</div>}
      </>
    ),
  },
  { header: 'What', cell: ({ row }) => <code>{row.original.action}</code> },
  {
    header: 'Target',
    cell: ({ row }) => (
      <>
        {row.original.targetType} <code>{row.original.targetId}</code>
      </>
    ),
  },
  { header: 'Changes', cell: ({ row }) => <ChangesOf before={row.original.before} after={row.original.after} /> },
];
