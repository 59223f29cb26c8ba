'use client';

import { DataTable } from '../../../_console/ui/data-table';
import { Pager } from '../../../_console/ui/pager';
import { webhookColumns } from './columns';
import type { PartnerData } from './query';

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
        columns={webhookColumns}
        rows={partner.webhookSubscriptions.nodes}
        empty="No webhook subscriptions."
      />
      <Pager pageInfo={partner.webhookSubscriptions.pageInfo} after={after} onPage={onPage} />
    </section>
  );
}
