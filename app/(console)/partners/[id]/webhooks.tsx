'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { DataTable } from '../../../_console/ui/data-table';
import { formatPercent, formatTime } from '../../../_console/ui/format';
import { Pager } from '../../../_console/ui/pager';
import type { PartnerData } from './query';

type SubscriptionRow = PartnerData['webhookSubscriptions']['nodes'][number];

const DISABLED_REASONS: Record<string, string> = {
  gone: 'the endpoint answered 410 Gone',
  too_many_failures: 'too many failures',
  disabled_by_partner: 'by the partner',
  disabled_by_operator: 'by an operator',
};

const columns: ColumnDef<SubscriptionRow, unknown>[] = [
  {
    header: 'Endpoint',
    cell: ({ row }) => (
      <Link href={`/subscriptions/${row.original.id}`} aria-label={`Health of ${row.original.url}`}>
        {row.original.url}
      </Link>
    ),
  },
  { header: 'Environment', accessorKey: 'environment' },
  {
    header: 'Status',
    cell: ({ row }) => (
      <span className={row.original.status === 'enabled' ? 'status-good' : 'status-bad'}>
        {row.original.status}
        {row.original.disabledReason && ` (${DISABLED_REASONS[row.original.disabledReason] ?? row.original.disabledReason})`}
      </span>
    ),
  },
  { header: 'Failing since', cell: ({ row }) => formatTime(row.original.failingSince) },
  {
    header: 'Success, last 24 h',
    cell: ({ row }) => {
      const rate = row.original.successRate;
      return rate.attempts === 0 ? <span className="muted">no attempts</span> : `${formatPercent(rate.ratio)} of ${rate.attempts}`;
    },
  },
];

export function WebhooksSection({
  partner,
  after,
  onPage,
}: {
  partner: PartnerData;
  after?: string;
  onPage: (after: string | undefined) => void;
}) {
  return (
    <section aria-labelledby="webhooks">
      <h2 id="webhooks">Webhook subscriptions</h2>
      <DataTable
        caption="Live subscriptions of both environments, newest first; each opens to its health"
        columns={columns}
        rows={partner.webhookSubscriptions.nodes}
        empty="No webhook subscriptions."
      />
      <Pager pageInfo={partner.webhookSubscriptions.pageInfo} after={after} onPage={onPage} />
    </section>
  );
}
