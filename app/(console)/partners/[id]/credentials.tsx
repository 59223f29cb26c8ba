'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql, type ResultOf } from '../../../_console/graphql';
import { ConfirmButton } from '../../../_console/ui/confirm';
import { CopyButton } from '../../../_console/ui/copy';
import { DataTable } from '../../../_console/ui/data-table';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';
import { formatTime } from '../../../_console/ui/format';
import { Pager } from '../../../_console/ui/pager';
import { useMay } from '../../../_console/viewer';
import type { PartnerData, Refresh } from './query';

const IssueCredential = graphql(`
  mutation IssueCredential($partnerId: ID!, $environment: Environment!) {
    issueCredential(partnerId: $partnerId, environment: $environment) {
      clientId
      environment
      key
    }
  }
`);

const RevokeCredential = graphql(`
  mutation RevokeCredential($clientId: String!) {
    revokeCredential(clientId: $clientId) {
      clientId
      revokedAt
    }
  }
`);

type CredentialRow = PartnerData['credentials']['nodes'][number];
type Issued = ResultOf<typeof IssueCredential>['issueCredential'];

export function CredentialsSection({
  partner,
  refresh,
  after,
  onPage,
}: {
  partner: PartnerData;
  refresh: Refresh;
  after?: string;
  onPage: (after: string | undefined) => void;
}) {
  const mayIssue = useMay('issueCredential');
  const mayRevoke = useMay('revokeCredential');
  const columns: ColumnDef<CredentialRow, unknown>[] = [
    { header: 'Client ID', cell: ({ row }) => <code>{row.original.clientId}</code> },
    { header: 'Environment', accessorKey: 'environment' },
    { header: 'Key ends with', cell: ({ row }) => <code>…{row.original.keyLast4}</code> },
    { header: 'Issued', cell: ({ row }) => formatTime(row.original.createdAt) },
    {
      header: 'State',
      cell: ({ row }) =>
        row.original.revokedAt ? (
          <span className="status-bad">revoked {formatTime(row.original.revokedAt)}</span>
        ) : (
          <span className="status-good">active</span>
        ),
    },
  ];
  if (mayRevoke) {
    columns.push({ header: 'Actions', id: 'revoke', cell: ({ row }) => <RevokeCell row={row.original} onRevoked={refresh} /> });
  }
  return (
    <section aria-labelledby="credentials">
      <h2 id="credentials">Credentials</h2>
      {mayIssue && <IssueControls partner={partner} onIssued={refresh} />}
      <DataTable
        caption="API credentials, newest first (keys are shown only when issued)"
        columns={columns}
        rows={partner.credentials.nodes}
        empty="No credentials issued."
      />
      <Pager pageInfo={partner.credentials.pageInfo} after={after} onPage={onPage} />
    </section>
  );
}

function IssueControls({ partner, onIssued }: { partner: PartnerData; onIssued: Refresh }) {
  const [result, issue] = useMutation(IssueCredential);
  const [issued, setIssued] = useState<Issued | null>(null);
  const approved = partner.goLive.status === 'approved';
  async function issueFor(environment: 'sandbox' | 'production') {
    setIssued(null);
    const done = await issue({ partnerId: partner.id, environment });
    if (done.data) {
      setIssued(done.data.issueCredential);
      onIssued();
    }
  }
  return (
    <>
      <div className="inline-actions">
        <button type="button" className="primary" disabled={result.fetching} onClick={() => issueFor('sandbox')}>
          Issue sandbox credentials
        </button>
        <button
          type="button"
          disabled={result.fetching || !approved}
          aria-describedby={approved ? undefined : 'production-needs-approval'}
          onClick={() => issueFor('production')}
        >
          Issue production credentials
        </button>
        {!approved && (
          <span id="production-needs-approval" className="muted">
            Production credentials need an approved go-live review.
          </span>
        )}
      </div>
      <ErrorList errors={apiErrors(result.error)} />
      {issued && (
        <div className="notice" role="status" aria-label="Issued credentials">
          <p>
            <strong>
              {issued.environment === 'production' ? 'Production' : 'Sandbox'} credentials issued. The key will not be shown again: copy it
              now and hand it to the partner through a channel you trust.
            </strong>
          </p>
          <dl className="pairs">
            <dt>Client ID (X-Client-ID)</dt>
            <dd>
              <code aria-label="Issued client ID">{issued.clientId}</code> <CopyButton text={issued.clientId} label="Copy client ID" />
            </dd>
            <dt>API key (X-API-Key)</dt>
            <dd>
              <code aria-label="Issued API key">{issued.key}</code> <CopyButton text={issued.key} label="Copy key" />
            </dd>
          </dl>
          <button type="button" onClick={() => setIssued(null)}>
            I have stored the key
          </button>
        </div>
      )}
    </>
  );
}

function RevokeCell({ row, onRevoked }: { row: CredentialRow; onRevoked: Refresh }) {
  const [result, revoke] = useMutation(RevokeCredential);
  if (row.revokedAt) return <span className="muted">—</span>;
  return (
    <>
      <ConfirmButton
        label={`Revoke ${row.clientId}`}
        title={`Revoke ${row.clientId}?`}
        description="Every request with this key is refused within a few seconds, on every process. It cannot be undone: the partner will need a new key."
        confirmLabel="Revoke credential"
        disabled={result.fetching}
        onConfirm={async () => {
          const done = await revoke({ clientId: row.clientId });
          if (done.data) onRevoked();
        }}
      />
      <ErrorList errors={apiErrors(result.error)} />
    </>
  );
}
