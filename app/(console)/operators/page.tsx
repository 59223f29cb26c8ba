'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useMutation, useQuery } from 'urql';
import type { z } from 'zod';
import { createOperatorInput, OPERATOR_ROLES } from '@/server/operators/schemas';
import { graphql, type ResultOf } from '../../_console/graphql';
import { ConfirmButton } from '../../_console/ui/confirm';
import { CopyButton } from '../../_console/ui/copy';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { useMay, useViewer } from '../../_console/viewer';

const OperatorsPage = graphql(`
  query OperatorsPage {
    operators(first: 100) {
      nodes {
        id
        email
        role
        createdAt
        disabledAt
      }
    }
    sessions(first: 100) {
      nodes {
        id
        operatorEmail
        createdAt
        lastSeenAt
        expiresAt
        address
        current
      }
    }
  }
`);

const CreateOperator = graphql(`
  mutation CreateOperator($email: String!, $role: Role!, $password: String) {
    createOperator(email: $email, role: $role, password: $password) {
      generatedPassword
      operator {
        id
        email
      }
    }
  }
`);

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

type OperatorRow = ResultOf<typeof OperatorsPage>['operators']['nodes'][number];
type SessionRow = ResultOf<typeof OperatorsPage>['sessions']['nodes'][number];

export default function Operators() {
  // Managing operators is admin's: for support the page is absent, as it is from the navigation.
  if (!useMay('createOperator')) return <p>There is no such page for your role.</p>;
  return <OperatorsForAdmin />;
}

function OperatorsForAdmin() {
  const [{ data, error }, refetch] = useQuery({ query: OperatorsPage });
  const refresh = () => refetch({ requestPolicy: 'network-only' });
  return (
    <>
      <h1>Operators</h1>
      <ErrorList errors={apiErrors(error)} />
      <CreateOperatorForm onCreated={refresh} />
      <h2>Operators, roles and status</h2>
      <DataTable
        caption="Everyone who can sign in to the console"
        columns={operatorColumns(refresh)}
        rows={data?.operators.nodes ?? []}
        empty="No operators."
      />
      <h2>Signed-in sessions</h2>
      <DataTable
        caption="Live sessions; revoking one signs it out on its next request"
        columns={sessionColumns(refresh)}
        rows={data?.sessions.nodes ?? []}
        empty="No live sessions."
      />
    </>
  );
}

type CreateForm = z.input<typeof createOperatorInput>;

function CreateOperatorForm({ onCreated }: { onCreated: () => void }) {
  const [result, create] = useMutation(CreateOperator);
  const [shown, setShown] = useState<{ email: string; password: string } | null>(null);
  const form = useForm<CreateForm>({ resolver: zodResolver(createOperatorInput), defaultValues: { role: 'support' } });
  const errors = apiErrors(result.error);
  const submit = form.handleSubmit(async (values) => {
    const done = await create({ email: values.email, role: values.role, password: values.password || undefined });
    if (done.data) {
      const created = done.data.createOperator;
      setShown(created.generatedPassword ? { email: created.operator.email, password: created.generatedPassword } : null);
      form.reset({ email: '', password: '', role: values.role });
      onCreated();
    }
  });
  const fieldError = (name: keyof CreateForm) => form.formState.errors[name]?.message ?? errorFor(errors, name);
  return (
    <section aria-labelledby="create-operator">
      <h2 id="create-operator">Add an operator</h2>
      <form className="inline" onSubmit={submit} noValidate>
        <label>
          E-mail
          <input type="email" aria-invalid={Boolean(fieldError('email'))} {...form.register('email')} />
          {fieldError('email') && <span className="error">{fieldError('email')}</span>}
        </label>
        <label>
          Role
          <select {...form.register('role')}>
            {OPERATOR_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Password (empty: generate one)
          <input
            type="password"
            autoComplete="new-password"
            aria-invalid={Boolean(fieldError('password'))}
            {...form.register('password', { setValueAs: (v: string) => v || undefined })}
          />
          {fieldError('password') && <span className="error">{fieldError('password')}</span>}
        </label>
        <button type="submit" className="primary" disabled={result.fetching}>
          Add operator
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['email', 'password']} />
      {shown && (
        <div className="notice" role="status">
          <p>
            Password for {shown.email}: <code>{shown.password}</code> <CopyButton text={shown.password} />
          </p>
          <p>It is shown this once: hand it over through a channel you trust.</p>
        </div>
      )}
    </section>
  );
}

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
          {OPERATOR_ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
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

function operatorColumns(refresh: () => void): ColumnDef<OperatorRow, unknown>[] {
  return [
    { header: 'E-mail', accessorKey: 'email' },
    { header: 'Role', cell: ({ row }) => <RoleCell row={row.original} onChanged={refresh} /> },
    { header: 'Status', cell: ({ row }) => <StatusCell row={row.original} onChanged={refresh} /> },
    { header: 'Added', cell: ({ row }) => formatTime(row.original.createdAt) },
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

function sessionColumns(refresh: () => void): ColumnDef<SessionRow, unknown>[] {
  return [
    { header: 'Operator', accessorKey: 'operatorEmail' },
    { header: 'Signed in', cell: ({ row }) => formatTime(row.original.createdAt) },
    { header: 'Last seen', cell: ({ row }) => formatTime(row.original.lastSeenAt) },
    { header: 'Expires', cell: ({ row }) => formatTime(row.original.expiresAt) },
    { header: 'From', cell: ({ row }) => row.original.address ?? '—' },
    { header: '', id: 'revoke', cell: ({ row }) => <RevokeCell row={row.original} onRevoked={refresh} /> },
  ];
}
