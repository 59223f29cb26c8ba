'use client';

import { useState } from 'react';
import { useQuery } from 'urql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { Pager } from '../../_console/ui/pager';
import { useMay } from '../../_console/viewer';
import { columns } from './columns';
import { OutboxPage } from './query';

export default function Outbox() {
  // Admin only, like the API: a kept message can carry a one-time link to a partner's key.
  if (!useMay('resendHandover')) return <p>There is no such page for your role.</p>;
  return <OutboxForAdmin />;
}

function OutboxForAdmin() {
  const [after, setAfter] = useState<string | undefined>();
  const [{ data, error }] = useQuery({ query: OutboxPage, variables: { after }, requestPolicy: 'cache-and-network' });
  const nodes = data?.mailMessages.nodes ?? [];
  const kept = nodes.filter((m) => m.body !== null);
  return (
    <>
      <h1>Outbox</h1>
      <p className="muted">
        Mail the service sent or is sending. Without SMTP_URL nothing leaves this machine: each message is kept here (status kept), and its
        text is readable below, so you can follow the links a partner would get. Mail that went out over SMTP is never readable here.
      </p>
      <ErrorList errors={apiErrors(error)} />
      <DataTable caption="Mail, newest first" columns={columns} rows={nodes} empty="No mail yet." />
      {data && <Pager pageInfo={data.mailMessages.pageInfo} after={after} onPage={setAfter} />}
      {kept.length > 0 && <h2>Kept messages</h2>}
      {kept.map((m) => (
        <article key={m.id} className="notice" aria-label={`Message to ${m.to}: ${m.subject}`}>
          <p>
            <strong>{m.subject}</strong> to {m.to} · {formatTime(m.createdAt)}
          </p>
          <pre style={{ whiteSpace: 'pre-wrap' }}>
            <MailText text={m.body ?? ''} />
          </pre>
        </article>
      ))}
    </>
  );
}

/** The message's text with its links clickable (a newcomer follows the hand-over link from here). */
function MailText({ text }: { text: string }) {
  return (
    <>
      {text.split(/(https?:\/\/\S+)/).map((part, i) =>
        /^https?:\/\//.test(part) ? (
          <a key={i} href={part} rel="noreferrer" target="_blank">
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </>
  );
}
