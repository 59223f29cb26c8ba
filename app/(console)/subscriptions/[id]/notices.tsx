'use client';

import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, type ResultOf } from '../../../_console/graphql';
import { DataTable } from '../../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../../_console/ui/errors';
import { Field } from '../../../_console/ui/field';
import { useMay } from '../../../_console/viewer';
import { noticeColumns } from './columns';

const SubscriptionNotices = graphql(`
  query SubscriptionNotices($id: ID!) {
    webhookSubscription(id: $id) {
      id
      partnerId
      environment
      technicalContacts {
        emails
        sandboxNotifications
      }
      notices(first: 50) {
        id
        stage
        streakSince
        sends {
          channel
          to
          status
          at
        }
      }
    }
  }
`);

const SetTechnicalContacts = graphql(`
  mutation SetTechnicalContacts($partnerId: ID!, $emails: [String!]!, $sandboxNotifications: Boolean) {
    setTechnicalContacts(partnerId: $partnerId, emails: $emails, sandboxNotifications: $sandboxNotifications) {
      emails
      sandboxNotifications
    }
  }
`);

type Notice = ResultOf<typeof SubscriptionNotices>['webhookSubscription']['notices'][number];
export type NoticeRow = Notice['sends'][number] & { stage: Notice['stage']; streakSince: string };

/**
 * What the partner was told of this subscription's failing streaks (server/notices/): each mail to a
 * technical contact and each delivery of the webhook.* event, and who the contacts are.
 */
export function NoticesSection({ id }: { id: string }) {
  const [{ data, error }, refetch] = useQuery({ query: SubscriptionNotices, variables: { id } });
  const sub = data?.webhookSubscription;
  if (!sub) return <ErrorList errors={apiErrors(error)} />;
  const contacts = sub.technicalContacts;
  const rows: NoticeRow[] = sub.notices.flatMap((n) => n.sends.map((s) => ({ ...s, stage: n.stage, streakSince: n.streakSince })));
  const silent = sub.environment === 'sandbox' && !contacts.sandboxNotifications;
  return (
    <section aria-labelledby="notices">
      <h2 id="notices">Failure notices</h2>
      <p className="muted">
        When every attempt has failed for an hour (by default), nears auto-disable (50 % and 90 % of the way), is disabled by its failures
        or recovers, the partner&apos;s technical contacts are mailed and its other subscriptions that ask get a webhook.* event: once per
        stage.
      </p>
      <dl className="pairs">
        <dt>Technical contacts</dt>
        <dd data-testid="technical-contacts">{contacts.emails.length === 0 ? 'none: nobody is mailed' : contacts.emails.join(', ')}</dd>
        <dt>Sandbox</dt>
        <dd>
          {contacts.sandboxNotifications ? 'notified (the partner opted in)' : 'not notified (the default)'}
          {silent && ': nothing is sent about this subscription'}
        </dd>
      </dl>
      {useMay('setTechnicalContacts') && (
        <ContactsForm
          partnerId={sub.partnerId}
          emails={contacts.emails}
          sandbox={contacts.sandboxNotifications}
          onSaved={() => refetch({ requestPolicy: 'network-only' })}
        />
      )}
      <DataTable caption="Notices sent about this subscription, newest first" columns={noticeColumns} rows={rows} empty="None sent." />
    </section>
  );
}

function ContactsForm({
  partnerId,
  emails,
  sandbox,
  onSaved,
}: {
  partnerId: string;
  emails: string[];
  sandbox: boolean;
  onSaved: () => void;
}) {
  const [result, save] = useMutation(SetTechnicalContacts);
  const [text, setText] = useState(emails.join(', '));
  const [sandboxOn, setSandboxOn] = useState(sandbox);
  const errors = apiErrors(result.error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const list = text
      .split(/[\s,;]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    const done = await save({ partnerId, emails: list, sandboxNotifications: sandboxOn });
    if (done.data) onSaved();
  };
  const emailsError = errorFor(errors, 'emails');
  return (
    <>
      <form className="inline" onSubmit={submit} noValidate aria-label="Technical contacts">
        <Field label="E-mail addresses (comma-separated, at most 10)" error={emailsError}>
          <input value={text} onChange={(e) => setText(e.target.value)} aria-invalid={Boolean(emailsError)} autoComplete="off" size={48} />
        </Field>
        <label>
          <input type="checkbox" checked={sandboxOn} onChange={(e) => setSandboxOn(e.target.checked)} /> Notify for sandbox subscriptions
        </label>
        <button type="submit" className="primary" disabled={result.fetching}>
          Save contacts
        </button>
      </form>
      <ErrorList errors={errors.filter((e) => !e.param?.startsWith('emails'))} />
    </>
  );
}
