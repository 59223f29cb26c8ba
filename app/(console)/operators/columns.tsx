'use client';

import type { ColumnDef } from '@tanstack/react-table';
import { useMutation } from 'urql';
import { OPERATOR_ROLES } from '@/server/operators/schemas';
import { graphql } from '../../_console/graphql';
import { timeColumn } from '../../_console/ui/cells';
import { ConfirmButton } from '../../_console/ui/confirm';
import { apiErrors, ErrorList } from '../../_console/ui/errors';
import { Options } from '../../_console/ui/field';
import { formatTime } from '../../_console/ui/format';
import { useViewer } from '../../_console/viewer';
import type { OperatorRow, SessionRow } from './query';

const ChangeRole = graphql(`
  mutation ChangeOperatorRole($id: ID!, $role: Role!) {
    changeOperatorRole(id: $id, role: $role) {
      id
      role
    }
  }
`);

const DisableOperator = graphql(`
  mutation DisableOperator($id: ID!) {
    disableOperator(id: $id) {
      id
      disabledAt
    }
  }
`);

const EnableOperator = graphql(`
  mutation EnableOperator($id: ID!) {
    enableOperator(id: $id) {
      id
      disabledAt
    }
  }
`);

const RevokeSession = graphql(`
  mutation RevokeSession($id: ID!) {
    revokeSession(id: $id)
  }
`);

function RoleCell({ row, onChanged }: { row: OperatorRow; onChanged: () => void }) {
  const [result, change] = useMutation(ChangeRole);
  const viewer = useViewer();
  const errors = apiErrors(result.error);
  return (
    <>
      <label>
        <span className="visually-hidden">Role of {row.email}</span>
        <select
          value={row.role}
          disabled={result.fetching}
          onChange={async (e) => {
            const done = await change({ id: row.id, role: e.target.value as (typeof OPERATOR_ROLES)[number] });
            if (done.data) onChanged();
          }}
        >
          <Options values={OPERATOR_ROLES} />
        </select>
      </label>
      {row.id === viewer.operator.id && <span className="muted"> (you)</span>}
      <ErrorList errors={errors} />
    </>
  );
}

function StatusCell({ row, onChanged }: { row: OperatorRow; onChanged: () => void }) {
  const [disabling, disable] = useMutation(DisableOperator);
  const [enabling, enable] = useMutation(EnableOperator);
  const errors = apiErrors(disabling.error ?? enabling.error);
  return (
    <>
      {row.disabledAt ? (
        <>
          <span>Disabled {formatTime(row.disabledAt)}</span>{' '}
          <ConfirmButton
            label="Enable"
            title={`Let ${row.email} sign in again?`}
            description="They sign in with the password they had; their old sessions stay ended."
            confirmLabel="Enable operator"
            disabled={enabling.fetching}
            onConfirm={async () => {
              const done = await enable({ id: row.id });
              if (done.data) onChanged();
            }}
          />
        </>
      ) : (
        <>
          <span>Active</span>{' '}
          <ConfirmButton
            label="Disable"
            title={`Disable ${row.email}?`}
            description="Every session of theirs ends at once and they can no longer sign in. Their entries stay in the audit log; you can enable them again."
            confirmLabel="Disable operator"
            disabled={disabling.fetching}
            onConfirm={async () => {
              const done = await disable({ id: row.id });
              if (done.data) onChanged();
            }}
          />
        </>
      )}
      <ErrorList errors={errors} />
    </>
  );
}

export function operatorColumns(refresh: () => void): ColumnDef<OperatorRow, unknown>[] {
  return [
    { header: 'E-mail', accessorKey: 'email' },
    { header: 'Role', cell: ({ row }) => <RoleCell row={row.original} onChanged={refresh} /> },
    { header: 'Status', cell: ({ row }) => <StatusCell row={row.original} onChanged={refresh} /> },
    timeColumn('Added', (r) => r.createdAt),
  ];
}

function RevokeCell({ row, onRevoked }: { row: SessionRow; onRevoked: () => void }) {
  const [result, revoke] = useMutation(RevokeSession);
  if (row.current) return <span className="muted">this session</span>;
  return (
    <>
      <ConfirmButton
        label="Revoke"
        title={`Sign ${row.operatorEmail} out?`}
        description="This session is refused on its next request, on every process."
        confirmLabel="Revoke session"
        disabled={result.fetching}
        onConfirm={async () => {
          const done = await revoke({ id: row.id });
          if (done.data) onRevoked();
        }}
      />
      <ErrorList errors={apiErrors(result.error)} />
    </>
  );
}

export function sessionColumns(refresh: () => void): ColumnDef<SessionRow, unknown>[] {
  return [
    { header: 'Operator', accessorKey: 'operatorEmail' },
    timeColumn('Signed in', (r) => r.createdAt),
    timeColumn('Last seen', (r) => r.lastSeenAt),
    timeColumn('Expires', (r) => r.expiresAt),
    { header: 'From', cell: ({ row }) => row.original.address ?? '—' },
    { header: '', id: 'revoke', cell: ({ row }) => <RevokeCell row={row.original} onRevoked={refresh} /> },
  ];
}
