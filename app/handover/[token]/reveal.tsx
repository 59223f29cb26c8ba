'use client';

import { useEffect, useState } from 'react';
import { CopyButton } from '../../_console/ui/copy';

interface Shown {
  client_id: string;
  api_key: string;
  environment: 'sandbox' | 'production';
}

/** The button that opens the link (POST /api/handover/{token}), then the credentials once, or why not. */
export function HandoverReveal({ token }: { token: string }) {
  const [shown, setShown] = useState<Shown | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const url = `/api/handover/${encodeURIComponent(token)}`;

  // Asks whether the link was used (it shows and uses nothing), so a second visit says so at once.
  useEffect(() => {
    let live = true;
    void fetch(url, { cache: 'no-store' })
      .then(async (res) => {
        const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
        if (live && !res.ok && body?.error?.message) setRefusal(body.error.message);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [url]);

  async function reveal() {
    setBusy(true);
    const res = await fetch(url, { method: 'POST', cache: 'no-store' }).catch(() => undefined);
    setBusy(false);
    const body = (await res?.json().catch(() => undefined)) as (Shown & { error?: { message?: string } }) | undefined;
    if (res?.ok && body) setShown(body);
    else setRefusal(body?.error?.message ?? 'The service did not answer; try again.');
  }

  if (shown) {
    return (
      <div className="notice" role="status" aria-label="Your credentials">
        <p>
          <strong>
            Your {shown.environment} credentials. This page shows the key once: copy it now. Reloading or opening the link again will not
            show it.
          </strong>
        </p>
        <dl className="pairs">
          <dt>Client ID (X-Client-ID)</dt>
          <dd>
            <code aria-label="Client ID">{shown.client_id}</code> <CopyButton text={shown.client_id} label="Copy client ID" />
          </dd>
          <dt>API key (X-API-Key)</dt>
          <dd>
            <code aria-label="API key">{shown.api_key}</code> <CopyButton text={shown.api_key} label="Copy key" />
          </dd>
        </dl>
        <p>
          Keep the key in a secrets manager and send it only from your servers. Never put it in a mobile app, a front-end bundle or source
          control: anyone who can read it can act as you.
        </p>
      </div>
    );
  }
  if (refusal) {
    return (
      <div className="notice" role="alert" aria-label="Link refused">
        <p>{refusal}</p>
      </div>
    );
  }
  return (
    <>
      <p>
        The button below shows your X-Client-ID and API key. It works once: after that, this link only says it was used. Have your secrets
        manager ready.
      </p>
      <button type="button" className="primary" disabled={busy} onClick={reveal}>
        {busy ? 'Opening…' : 'Show my credentials'}
      </button>
    </>
  );
}
