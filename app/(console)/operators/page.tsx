'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useMutation, useQuery } from 'urql';
import type { z } from 'zod';
import { createOperatorInput, OPERATOR_ROLES } from '@/server/operators/schemas';
import { graphql } from '../../_console/graphql';
import { CopyButton } from '../../_console/ui/copy';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, fieldErrors } from '../../_console/ui/errors';
import { Field, Options } from '../../_console/ui/field';
import { useMay } from '../../_console/viewer';
import { operatorColumns, sessionColumns } from './columns';
import { OperatorsPage } from './query';

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
  const fieldError = fieldErrors(form, errors);
  return (
    <section aria-labelledby="create-operator">
      <h2 id="create-operator">Add an operator</h2>
      <form className="inline" onSubmit={submit} noValidate>
        <Field label="E-mail" error={fieldError('email')}>
          <input type="email" aria-invalid={Boolean(fieldError('email'))} {...form.register('email')} />
        </Field>
        <label>
          Role
          <select {...form.register('role')}>
            <Options values={OPERATOR_ROLES} />
          </select>
        </label>
        <Field label="Password (empty: generate one)" error={fieldError('password')}>
          <input
            type="password"
            autoComplete="new-password"
            aria-invalid={Boolean(fieldError('password'))}
            {...form.register('password', { setValueAs: (v: string) => v || undefined })}
          />
        </Field>
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
