'use client';

import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql, type ResultOf } from '../../../_console/graphql';
import { CopyButton } from '../../../_console/ui/copy';
import { DataTable } from '../../../_console/ui/data-table';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';
import { Pager } from '../../../_console/ui/pager';
import { useMay } from '../../../_console/viewer';
import { credentialColumns } from './columns';
import type { PartnerData, Refresh } from './query';

const IssueCredential = graphql(`
  mutation IssueCredential($partnerId: ID!, $environment: Environment!, $email: String) {
    issueCredential(partnerId: $partnerId, environment: $environment, email: $email) {
      clientId
      environment
      key
      handedOverTo
    }
  }
`);

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
  const mayResend = useMay('resendHandover');
  const columns = credentialColumns({ mayResend, mayRevoke, refresh });
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
  const [email, setEmail] = useState('');
  const approved = partner.goLive.status === 'approved';
  async function issueFor(environment: 'sandbox' | 'production') {
    setIssued(null);
    const done = await issue({ partnerId: partner.id, environment, email: email.trim() || null });
    if (done.data) {
      setIssued(done.data.issueCredential);
      onIssued();
    }
  }
  return (
    <>
      <div className="inline-actions">
        <label>
          Hand over to (e-mail){' '}
          <input
            type="email"
            name="handover-email"
            placeholder="developer@partner.example"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-describedby="handover-hint"
          />
        </label>
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
      <p id="handover-hint" className="muted">
        With an e-mail, the key is not shown here: the partner gets a one-time link that shows it once.
      </p>
      <ErrorList errors={apiErrors(result.error)} />
      {issued?.handedOverTo && (
        <div className="notice" role="status" aria-label="Issued credentials">
          <p>
            {issued.environment === 'production' ? 'Production' : 'Sandbox'} credentials <code>{issued.clientId}</code> handed over to{' '}
            <strong>{issued.handedOverTo}</strong>: a one-time link to the key is on its way. The key is not shown here.
          </p>
          <button type="button" onClick={() => setIssued(null)}>
            Done
          </button>
        </div>
      )}
      {issued?.key && (
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
