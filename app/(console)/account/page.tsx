'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useMutation } from 'urql';
import { z } from 'zod';
import { operatorPassword } from '@/server/operators/schemas';
import { graphql } from '../../_console/graphql';
import { apiErrors, ErrorList, fieldErrors } from '../../_console/ui/errors';
import { Field } from '../../_console/ui/field';
import { useViewer } from '../../_console/viewer';

const ChangePassword = graphql(`
  mutation ChangePassword($currentPassword: String!, $newPassword: String!) {
    changePassword(currentPassword: $currentPassword, newPassword: $newPassword) {
      sessionsEnded
    }
  }
`);

// The server's policy (operatorPassword), and a repeat typed twice so a typo does not lock one out.
const changeForm = z
  .object({ currentPassword: z.string().min(1, 'required'), newPassword: operatorPassword, repeat: z.string() })
  .refine((v) => v.repeat === v.newPassword, { path: ['repeat'], message: 'does not match the new password' });
type ChangeForm = z.input<typeof changeForm>;

/** Any signed-in operator: their own password. */
export default function Account() {
  const viewer = useViewer();
  const [result, change] = useMutation(ChangePassword);
  const [ended, setEnded] = useState<number | null>(null);
  const form = useForm<ChangeForm>({ resolver: zodResolver(changeForm) });
  const errors = apiErrors(result.error);
  const fieldError = fieldErrors(form, errors);
  const submit = form.handleSubmit(async ({ currentPassword, newPassword }) => {
    setEnded(null);
    const done = await change({ currentPassword, newPassword });
    if (done.data) {
      setEnded(done.data.changePassword.sessionsEnded);
      form.reset({ currentPassword: '', newPassword: '', repeat: '' });
    }
  });
  return (
    <>
      <h1>Your account</h1>
      <p>
        Signed in as {viewer.operator.email} ({viewer.operator.role}).
      </p>
      <section aria-labelledby="change-password">
        <h2 id="change-password">Change password</h2>
        <p className="muted">At least 12 characters. Your other sessions are signed out; this one stays.</p>
        <form onSubmit={submit} noValidate>
          <Field label="Current password" error={fieldError('currentPassword')}>
            <input
              type="password"
              autoComplete="current-password"
              aria-invalid={Boolean(fieldError('currentPassword'))}
              {...form.register('currentPassword')}
            />
          </Field>
          <Field label="New password" error={fieldError('newPassword')}>
            <input
              type="password"
              autoComplete="new-password"
              aria-invalid={Boolean(fieldError('newPassword'))}
              {...form.register('newPassword')}
            />
          </Field>
          <Field label="Repeat the new password" error={fieldError('repeat')}>
            <input type="password" autoComplete="new-password" aria-invalid={Boolean(fieldError('repeat'))} {...form.register('repeat')} />
          </Field>
          <button type="submit" className="primary" disabled={result.fetching}>
            Change password
          </button>
        </form>
        <ErrorList errors={errors} exceptParams={['currentPassword', 'newPassword']} />
        {ended !== null && (
          <p className="notice" role="status">
            Password changed. {ended === 1 ? '1 other session was' : `${ended} other sessions were`} signed out.
          </p>
        )}
      </section>
    </>
  );
}
