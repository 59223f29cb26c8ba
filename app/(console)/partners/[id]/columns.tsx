'use client';

import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { useMutation } from 'urql';
import { graphql } from '../../../_console/graphql';
import { ShortId, timeColumn, UrlText } from '../../../_console/ui/cells';
import { ConfirmButton } from '../../../_console/ui/confirm';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';
import { formatPercent, formatTime } from '../../../_console/ui/format';
import type { PartnerData, Refresh } from './query';

const ResendHandover = graphql(`
  mutation ResendHandover($clientId: String!) {
    resendHandover(clientId: $clientId) {
      clientId
      handedOverTo
      expiresAt
      keyReplaced
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

const UpgradeApiVersion = graphql(`
  mutation UpgradeApiVersion($partnerId: ID!, $environment: Environment!) {
    upgradeApiVersion(partnerId: $partnerId, environment: $environment) {
      environment
      version
    }
  }
`);

const RollbackApiVersion = graphql(`
  mutation RollbackApiVersion($partnerId: ID!, $environment: Environment!) {
    rollbackApiVersion(partnerId: $partnerId, environment: $environment) {
      environment
      version
    }
  }
`);

const RemoveAllowlistEntry = graphql(`
  mutation RemoveAllowlistEntry($partnerId: ID!, $cidr: String!) {
    removeAllowlistEntry(partnerId: $partnerId, cidr: $cidr)
  }
`);

type CredentialRow = PartnerData['credentials']['nodes'][number];
type EntryRow = PartnerData['allowlist']['nodes'][number];
type SubscriptionRow = PartnerData['webhookSubscriptions']['nodes'][number];
type PinRow = PartnerData['apiVersions'][number];

/** The partner's credentials; the hand-over column offers a new link to those who may send one, the last column revokes. */
export function credentialColumns({
  mayResend,
  mayRevoke,
  refresh,
}: {
  mayResend: boolean;
  mayRevoke: boolean;
  refresh: Refresh;
}): ColumnDef<CredentialRow, unknown>[] {
  const columns: ColumnDef<CredentialRow, unknown>[] = [
    { header: 'Client ID', cell: ({ row }) => <ShortId id={row.original.clientId} /> },
    { header: 'Environment', accessorKey: 'environment' },
    { header: 'Key ends with', cell: ({ row }) => <code>…{row.original.keyLast4}</code> },
    timeColumn('Issued', (r) => r.createdAt),
    {
      header: 'State',
      cell: ({ row }) =>
        row.original.revokedAt ? (
          <span className="status-bad">revoked {formatTime(row.original.revokedAt)}</span>
        ) : (
          <span className="status-good">active</span>
        ),
    },
    { header: 'Hand-over', cell: ({ row }) => <HandoverCell row={row.original} mayResend={mayResend} onResent={refresh} /> },
  ];
  if (mayRevoke) {
    columns.push({ header: 'Actions', id: 'revoke', cell: ({ row }) => <RevokeCell row={row.original} onRevoked={refresh} /> });
  }
  return columns;
}

function HandoverCell({ row, mayResend, onResent }: { row: CredentialRow; mayResend: boolean; onResent: Refresh }) {
  const [result, resend] = useMutation(ResendHandover);
  const h = row.handover;
  const state = !h ? (
    <span className="muted">not handed over</span>
  ) : h.usedAt ? (
    <>
      opened {formatTime(h.usedAt)} by {h.email}
    </>
  ) : h.endedAt ? (
    <span className="muted">link ended {formatTime(h.endedAt)}</span>
  ) : new Date(h.expiresAt).getTime() <= Date.now() ? (
    <span className="status-bad">
      sent to {h.email}, expired {formatTime(h.expiresAt)}
    </span>
  ) : (
    <>
      sent to {h.email}, expires {formatTime(h.expiresAt)}
    </>
  );
  return (
    <>
      {state}
      {mayResend && h && !row.revokedAt && (
        <>
          {' '}
          <ConfirmButton
            label="Send a new link"
            title={`Send a new link for ${row.clientId}?`}
            description={
              h.usedAt
                ? `The key was already shown, so the new link carries a new key: the current key stops working within a few seconds. The link goes to ${h.email}.`
                : `The new link carries the same key; the link sent before stops working. It goes to ${h.email}.`
            }
            confirmLabel="Send a new link"
            disabled={result.fetching}
            onConfirm={async () => {
              const done = await resend({ clientId: row.clientId });
              if (done.data) onResent();
            }}
          />
          <ErrorList errors={apiErrors(result.error)} />
        </>
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
        label="Revoke"
        name={`Revoke ${row.clientId}`}
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

/** The partner's allowlist; the last column removes an entry, for those who may. */
export function allowlistColumns({
  partnerId,
  mayRemove,
  refresh,
}: {
  partnerId: string;
  mayRemove: boolean;
  refresh: Refresh;
}): ColumnDef<EntryRow, unknown>[] {
  const columns: ColumnDef<EntryRow, unknown>[] = [
    { header: 'CIDR', cell: ({ row }) => <code>{row.original.cidr}</code> },
    { header: 'Label', cell: ({ row }) => row.original.label ?? '—' },
    timeColumn('Added', (r) => r.createdAt),
  ];
  if (mayRemove) {
    columns.push({
      header: 'Actions',
      id: 'remove',
      cell: ({ row }) => <RemoveCell partnerId={partnerId} row={row.original} onRemoved={refresh} />,
    });
  }
  return columns;
}

function RemoveCell({ partnerId, row, onRemoved }: { partnerId: string; row: EntryRow; onRemoved: Refresh }) {
  const [result, remove] = useMutation(RemoveAllowlistEntry);
  return (
    <>
      <ConfirmButton
        label={`Remove ${row.cidr}`}
        title={`Remove ${row.cidr} from the allowlist?`}
        description="Requests from this range are refused within seconds (unless another entry covers them). If it is the last entry, the partner is accepted from any address."
        confirmLabel="Remove entry"
        disabled={result.fetching}
        onConfirm={async () => {
          const done = await remove({ partnerId, cidr: row.cidr });
          if (done.data) onRemoved();
        }}
      />
      <ErrorList errors={apiErrors(result.error)} />
    </>
  );
}

/** Each environment's API version; admins upgrade it to the latest, or roll an upgrade back within its window. */
export function apiVersionColumns({
  partnerId,
  latest,
  mayUpgrade,
  mayRollback,
  refresh,
}: {
  partnerId: string;
  latest: string;
  mayUpgrade: boolean;
  mayRollback: boolean;
  refresh: Refresh;
}): ColumnDef<PinRow, unknown>[] {
  const columns: ColumnDef<PinRow, unknown>[] = [
    { header: 'Environment', accessorKey: 'environment' },
    {
      header: 'Version',
      cell: ({ row }) => {
        const { version, firstRequestPins } = row.original;
        const older = (version ?? firstRequestPins) < latest;
        return (
          <span data-testid={`api-version-${row.original.environment}`} className={older ? 'status-bad' : undefined}>
            {version ?? <span className="muted">not pinned yet: its first request pins {firstRequestPins}</span>}
            {version && older && ` (older than ${latest})`}
          </span>
        );
      },
    },
    {
      header: 'Rollback',
      cell: ({ row }) =>
        row.original.previousVersion && row.original.rollbackUntil ? (
          <>
            to {row.original.previousVersion} until {formatTime(row.original.rollbackUntil)}
          </>
        ) : (
          '—'
        ),
    },
    timeColumn('Pinned', (r) => r.pinnedAt),
    timeColumn('Changed', (r) => r.changedAt),
  ];
  if (mayUpgrade || mayRollback) {
    columns.push({
      header: 'Actions',
      id: 'version-actions',
      cell: ({ row }) => (
        <PinActions
          partnerId={partnerId}
          row={row.original}
          latest={latest}
          mayUpgrade={mayUpgrade}
          mayRollback={mayRollback}
          onDone={refresh}
        />
      ),
    });
  }
  return columns;
}

function PinActions({
  partnerId,
  row,
  latest,
  mayUpgrade,
  mayRollback,
  onDone,
}: {
  partnerId: string;
  row: PinRow;
  latest: string;
  mayUpgrade: boolean;
  mayRollback: boolean;
  onDone: Refresh;
}) {
  const [upgraded, upgrade] = useMutation(UpgradeApiVersion);
  const [rolledBack, rollback] = useMutation(RollbackApiVersion);
  const { environment } = row;
  const canUpgrade = mayUpgrade && (row.version ?? row.firstRequestPins) < latest;
  const canRollback = mayRollback && row.previousVersion && row.rollbackUntil && new Date(row.rollbackUntil).getTime() > Date.now();
  if (!canUpgrade && !canRollback) return <span className="muted">—</span>;
  return (
    <>
      {canUpgrade && (
        <ConfirmButton
          label={`Upgrade ${environment} to ${latest}`}
          title={`Upgrade the ${environment} environment to ${latest}?`}
          description={`Its requests without X-Service-Version are answered in ${latest} within a few seconds; the partner (or an admin) can roll back for 72 hours. Webhook subscriptions keep their own versions.`}
          confirmLabel="Upgrade"
          disabled={upgraded.fetching}
          onConfirm={async () => {
            const done = await upgrade({ partnerId, environment });
            if (done.data) onDone();
          }}
        />
      )}
      {canRollback && (
        <ConfirmButton
          label={`Roll ${environment} back to ${row.previousVersion}`}
          title={`Roll the ${environment} environment back to ${row.previousVersion}?`}
          description={`Its requests are answered in ${row.previousVersion} again within a few seconds.`}
          confirmLabel="Roll back"
          disabled={rolledBack.fetching}
          onConfirm={async () => {
            const done = await rollback({ partnerId, environment });
            if (done.data) onDone();
          }}
        />
      )}
      <ErrorList errors={[...apiErrors(upgraded.error), ...apiErrors(rolledBack.error)]} />
    </>
  );
}

const DISABLED_REASONS: Record<string, string> = {
  gone: 'the endpoint answered 410 Gone',
  too_many_failures: 'too many failures',
  disabled_by_partner: 'by the partner',
  disabled_by_operator: 'by an operator',
};

export const webhookColumns: ColumnDef<SubscriptionRow, unknown>[] = [
  {
    header: 'Endpoint',
    cell: ({ row }) => (
      <Link href={`/subscriptions/${row.original.id}`} aria-label={`Health of ${row.original.url}`}>
        <UrlText url={row.original.url} />
      </Link>
    ),
  },
  { header: 'Environment', accessorKey: 'environment' },
  { header: 'API version', cell: ({ row }) => <span data-testid="subscription-api-version">{row.original.apiVersion}</span> },
  {
    header: 'Status',
    cell: ({ row }) => (
      <span className={row.original.status === 'enabled' ? 'status-good' : 'status-bad'}>
        {row.original.status}
        {row.original.disabledReason && ` (${DISABLED_REASONS[row.original.disabledReason] ?? row.original.disabledReason})`}
      </span>
    ),
  },
  timeColumn('Failing since', (r) => r.failingSince),
  {
    header: 'Success, last 24 h',
    cell: ({ row }) => {
      const rate = row.original.successRate;
      return rate.attempts === 0 ? <span className="muted">no attempts</span> : `${formatPercent(rate.ratio)} of ${rate.attempts}`;
    },
  },
];
