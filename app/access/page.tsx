'use client';

// First: before any schema is parsed in the browser.
import '../_console/zod-without-eval';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { accessRequestInput } from '@/server/access/schemas';
import '../console.css';

type AccessForm = z.input<typeof accessRequestInput>;
type Field = keyof AccessForm;

const FIELDS: { name: Field; label: string; type?: string; hint?: string; optional?: boolean }[] = [
  { name: 'company', label: 'Company' },
  { name: 'contact_name', label: 'Your name' },
  { name: 'contact_email', label: 'Work e-mail', type: 'email', hint: 'We send a link here to confirm it.' },
  { name: 'website', label: 'Website (optional)', type: 'url', optional: true },
  { name: 'expected_monthly_orders', label: 'Expected orders a month (optional)', type: 'number', optional: true },
];

// The public request for sandbox access: no sign-in. Validated as you type with the API's own schema;
// the API's answer to a field is shown beside it.
export default function AccessPage() {
  const [sent, setSent] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<AccessForm>({ resolver: zodResolver(accessRequestInput), mode: 'onChange' });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    setFailure(null);
    const res = await fetch('/partner/access-requests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(values),
    }).catch(() => undefined);
    const body = (await res?.json().catch(() => undefined)) as
      { message?: string; error?: { message: string; errors?: { param: string; message: string }[] } } | undefined;
    if (res?.ok) {
      setSent(body?.message ?? 'A confirmation link is on its way.');
      return;
    }
    const fieldErrors = (body?.error?.errors ?? []).filter((e) => FIELDS.some((f) => f.name === e.param) || e.param === 'use_case');
    for (const e of fieldErrors) form.setError(e.param as Field, { message: e.message });
    if (fieldErrors.length === 0) setFailure(body?.error?.message ?? 'The service did not answer; try again.');
  });

  if (sent) {
    return (
      <main id="main" className="console-main">
        <title>Request sandbox access · Partner Delivery Platform</title>
        <h1>Check your inbox</h1>
        <div className="notice" role="status">
          <p>{sent}</p>
          <p>Your request reaches our team once you confirm the address. Nothing happens without the confirmation.</p>
        </div>
      </main>
    );
  }

  return (
    <main id="main" className="console-main">
      <title>Request sandbox access · Partner Delivery Platform</title>
      <h1>Request sandbox access</h1>
      <p>Tell us who you are and what you plan to deliver. We e-mail sandbox credentials once an operator approves the request.</p>
      <form onSubmit={submit} className="stacked" noValidate aria-label="Request sandbox access">
        {FIELDS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input
              type={f.type ?? 'text'}
              aria-invalid={Boolean(errors[f.name])}
              aria-describedby={errors[f.name] ? `${f.name}-error` : undefined}
              {...form.register(f.name, {
                // An empty optional field is absent, not "" (which is not a URL); an empty required one stays "".
                setValueAs: (v: string) => (v === '' ? (f.optional ? undefined : '') : f.type === 'number' ? Number(v) : v),
              })}
            />
            {f.hint && <span className="muted">{f.hint}</span>}
            {errors[f.name] && (
              <span className="error" id={`${f.name}-error`}>
                {errors[f.name]!.message}
              </span>
            )}
          </label>
        ))}
        <label>
          What will you use the API for?
          <textarea
            rows={4}
            aria-invalid={Boolean(errors.use_case)}
            aria-describedby={errors.use_case ? 'use_case-error' : undefined}
            {...form.register('use_case')}
          />
          {errors.use_case && (
            <span className="error" id="use_case-error">
              {errors.use_case.message}
            </span>
          )}
        </label>
        <button type="submit" className="primary" disabled={isSubmitting}>
          {isSubmitting ? 'Sending…' : 'Request access'}
        </button>
        {failure && (
          <p role="alert" className="error">
            {failure}
          </p>
        )}
      </form>
    </main>
  );
}
