'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { ChangesOf } from '../../_console/audit/changes';
import { ShortId, timeColumn } from '../../_console/ui/cells';
import type { AuditEntry } from './query';

export const columns: ColumnDef<AuditEntry, unknown>[] = [
  timeColumn('When', (e) => e.at),
  {
    header: 'Who',
    cell: ({ row }) => (
      <>
        {row.original.actorEmail ?? <ShortId id={row.original.actor} />}
        {row.original.actorEmail && (
          <div className="muted">
            <ShortId id={row.original.actor} copy={false} />
          </div>
        )}
      </>
    ),
  },
  { header: 'What', cell: ({ row }) => <code>{row.original.action}</code> },
  {
    header: 'Target',
    cell: ({ row }) => (
      <>
        {row.original.targetType} <ShortId id={row.original.targetId} />
      </>
    ),
  },
  { header: 'Changes', cell: ({ row }) => <ChangesOf before={row.original.before} after={row.original.after} /> },
];
