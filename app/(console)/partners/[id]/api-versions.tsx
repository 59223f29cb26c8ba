'use client';

import { DataTable } from '../../../_console/ui/data-table';
import { useMay } from '../../../_console/viewer';
import { apiVersionColumns } from './columns';
import type { PartnerData, Refresh } from './query';

/** Each environment's pinned API version (its webhook subscriptions' are in their own table). */
export function ApiVersionsSection({ partner, latest, refresh }: { partner: PartnerData; latest: string; refresh: Refresh }) {
  const columns = apiVersionColumns({
    partnerId: partner.id,
    latest,
    mayUpgrade: useMay('upgradeApiVersion'),
    mayRollback: useMay('rollbackApiVersion'),
    refresh,
  });
  return (
    <section aria-labelledby="api-versions">
      <h2 id="api-versions">API versions</h2>
      <DataTable
        caption={`The version each environment's requests are answered in (latest: ${latest})`}
        columns={columns}
        rows={partner.apiVersions}
        empty="No environments."
      />
    </section>
  );
}
