'use client';

import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from 'urql';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';
import { formatTime } from '../../../_console/ui/format';
import { useUrlState } from '../../../_console/ui/url-state';
import { AllowlistSection } from './allowlist';
import { ApiVersionsSection } from './api-versions';
import { CredentialsSection } from './credentials';
import { GoLiveSection } from './go-live';
import { latestOf, PartnerPage } from './query';
import { RateLimitSection } from './rate-limit';
import { WebhooksSection } from './webhooks';

export default function Partner() {
  const { id } = useParams<{ id: string }>();
  const [cursors, setUrl] = useUrlState(['credentials', 'allowlist', 'webhooks'] as const);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: PartnerPage,
    variables: {
      id,
      credentialsAfter: cursors.credentials ?? null,
      allowlistAfter: cursors.allowlist ?? null,
      webhooksAfter: cursors.webhooks ?? null,
    },
  });
  const refresh = () => refetch({ requestPolicy: 'network-only' });
  if (!data) {
    return (
      <>
        <p>
          <Link href="/partners">All partners</Link>
        </p>
        {fetching ? <p aria-busy="true">Loading…</p> : <ErrorList errors={apiErrors(error)} />}
      </>
    );
  }
  const partner = data.partner;
  return (
    <>
      <p>
        <Link href="/partners">All partners</Link>
      </p>
      <h1>{partner.name}</h1>
      <p className="muted">
        Partner <code>{partner.id}</code>, created {formatTime(partner.createdAt)}
      </p>
      <ErrorList errors={apiErrors(error)} />
      <CredentialsSection partner={partner} refresh={refresh} after={cursors.credentials} onPage={(c) => setUrl({ credentials: c })} />
      <AllowlistSection partner={partner} refresh={refresh} after={cursors.allowlist} onPage={(c) => setUrl({ allowlist: c })} />
      <GoLiveSection partner={partner} refresh={refresh} />
      <RateLimitSection partner={partner} refresh={refresh} />
      <ApiVersionsSection partner={partner} latest={latestOf(data.apiVersions)} refresh={refresh} />
      <WebhooksSection partner={partner} after={cursors.webhooks} onPage={(c) => setUrl({ webhooks: c })} />
    </>
  );
}
