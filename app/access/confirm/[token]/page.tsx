'use client';

import { useParams } from 'next/navigation';
import { useState } from 'react';
import '../../../console.css';

// Opening the link confirms nothing: mail scanners fetch links. The person presses the button (a POST).
export default function ConfirmAccessPage() {
  const { token } = useParams<{ token: string }>();
  const [state, setState] = useState<{ kind: 'idle' | 'busy' } | { kind: 'done' | 'refused'; message: string }>({ kind: 'idle' });

  async function confirm() {
    setState({ kind: 'busy' });
    const res = await fetch('/partner/access-requests/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    }).catch(() => undefined);
    const body = (await res?.json().catch(() => undefined)) as { message?: string; error?: { message: string } } | undefined;
    if (res?.ok) setState({ kind: 'done', message: body?.message ?? 'Confirmed.' });
    else setState({ kind: 'refused', message: body?.error?.message ?? 'The service did not answer; try again.' });
  }

  return (
    <main id="main" className="console-main">
      <title>Confirm your address · Partner Delivery Platform</title>
      <h1>Confirm your request for sandbox access</h1>
      {state.kind === 'done' ? (
        <div className="notice" role="status">
          <p>{state.message}</p>
          <p>We e-mail you when an operator has decided.</p>
        </div>
      ) : state.kind === 'refused' ? (
        <p role="alert" className="error">
          {state.message} <a href="/access">Request access</a>
        </p>
      ) : (
        <button type="button" className="primary" onClick={confirm} disabled={state.kind === 'busy'}>
          {state.kind === 'busy' ? 'Confirming…' : 'Confirm my e-mail address'}
        </button>
      )}
    </main>
  );
}
