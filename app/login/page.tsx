'use client';

import { useState, type FormEvent } from 'react';
import { afterSignIn } from '../_console/after-sign-in';
import '../console.css';

// Sign-in for operators: POST /api/session sets the http-only session cookie; the console and
// /api/graphql read it. One message for a wrong e-mail or password.
export default function LoginPage() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const form = new FormData(event.currentTarget);
    const res = await fetch('/api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: form.get('email'), password: form.get('password') }),
    }).catch(() => undefined);
    setBusy(false);
    if (res?.ok) {
      window.location.assign(afterSignIn(new URLSearchParams(window.location.search).get('next'), window.location.origin));
      return;
    }
    const body = (await res?.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    setError(body?.error?.message ?? 'The service did not answer; try again.');
  }

  return (
    <main id="main" className="console-main">
      <title>Sign in · Partner Delivery Platform</title>
      <h1>Operator sign-in</h1>
      {/* Plain fields in document order: Tab, type, Tab, type, Enter signs in. */}
      <form onSubmit={submit} className="stacked" aria-describedby={error ? 'sign-in-error' : undefined}>
        <label>
          E-mail
          <input name="email" type="email" autoComplete="username" required aria-invalid={error ? true : undefined} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required aria-invalid={error ? true : undefined} />
        </label>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error && (
          <p role="alert" id="sign-in-error" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
