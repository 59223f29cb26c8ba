'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import Link from 'next/link';
import { useForm } from 'react-hook-form';
import { useMutation, useQuery } from 'urql';
import { z } from 'zod';
import { decideGoLiveInput } from '@/server/partners/schemas';
import { graphql, type ResultOf } from '../../../_console/graphql';
import { ShortId, TimeCell } from '../../../_console/ui/cells';
import { apiErrors, ErrorList, errorFor } from '../../../_console/ui/errors';
import { Field } from '../../../_console/ui/field';
import { formatTime } from '../../../_console/ui/format';
import { useMay } from '../../../_console/viewer';
import type { PartnerData, Refresh } from './query';

// Its own query: the checklist reads the partner's whole sandbox record, so the rest of the page
// does not wait for it, and "Refresh" re-reads only this.
const GoLiveReviewQuery = graphql(`
  query GoLiveReview($partnerId: ID!) {
    goLiveReview(partnerId: $partnerId) {
      status
      note
      checklist {
        id
        label
        passed
        detail
        evidence {
          label
          href
        }
      }
      history {
        id
        from
        to
        note
        actor
        at
      }
    }
  }
`);

const RequestGoLive = graphql(`
  mutation RequestGoLive($partnerId: ID!, $note: String) {
    requestGoLive(partnerId: $partnerId, note: $note) {
      status
      note
    }
  }
`);

const ApproveGoLive = graphql(`
  mutation ApproveGoLive($partnerId: ID!, $note: String, $email: String) {
    approveGoLive(partnerId: $partnerId, note: $note, email: $email) {
      status
      note
      handover {
        clientId
        email
        expiresAt
      }
    }
  }
`);

const RejectGoLive = graphql(`
  mutation RejectGoLive($partnerId: ID!, $note: String, $email: String) {
    rejectGoLive(partnerId: $partnerId, note: $note, email: $email) {
      status
      note
    }
  }
`);

const STATUS_TEXT = {
  not_requested: 'Not requested',
  requested: 'Requested: waiting for a decision',
  approved: 'Approved: production credentials may be issued',
  rejected: 'Rejected: the partner may ask again',
} as const;

const decisionForm = z.object({
  note: decideGoLiveInput.shape.note,
  email: z.union([z.literal(''), decideGoLiveInput.shape.email.unwrap()]).optional(),
});
type DecisionValues = z.input<typeof decisionForm>;
type Review = ResultOf<typeof GoLiveReviewQuery>['goLiveReview'];
type Handover = NonNullable<ResultOf<typeof ApproveGoLive>['approveGoLive']['handover']>;

export function GoLiveSection({ partner, refresh }: { partner: PartnerData; refresh: Refresh }) {
  const [{ data, error, fetching }, reread] = useQuery({ query: GoLiveReviewQuery, variables: { partnerId: partner.id } });
  const review = data?.goLiveReview;
  const status = review?.status ?? partner.goLive.status;
  const mayDecide = useMay('approveGoLive');
  const reload = () => reread({ requestPolicy: 'network-only' });
  return (
    <section aria-labelledby="go-live">
      <h2 id="go-live">Go-live review</h2>
      <dl className="pairs">
        <dt>Status</dt>
        <dd data-testid="go-live-status">{STATUS_TEXT[status]}</dd>
        <dt>Last note</dt>
        <dd>{(review?.note ?? partner.goLive.note) || '—'}</dd>
      </dl>
      <ErrorList errors={apiErrors(error)} />
      {review && <Checklist items={review.checklist} />}
      <p>
        <button type="button" disabled={fetching} onClick={reload}>
          Refresh checklist
        </button>
      </p>
      {mayDecide && (
        <DecisionForm
          partnerId={partner.id}
          status={status}
          onDecided={() => {
            reload();
            refresh();
          }}
        />
      )}
      {review && <History entries={review.history} />}
    </section>
  );
}

function Checklist({ items }: { items: Review['checklist'] }) {
  const passed = items.filter((i) => i.passed).length;
  return (
    <table aria-label="Go-live checklist">
      <caption>
        Checklist from the partner&apos;s sandbox record: {passed} of {items.length} passed
      </caption>
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">Result</th>
          <th scope="col">Found</th>
          <th scope="col">Evidence</th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.id} data-testid={`check-${item.id}`}>
            <td>{item.label}</td>
            <td className={item.passed ? 'status-good' : 'status-bad'}>{item.passed ? 'Passed' : 'Not yet'}</td>
            <td>{item.detail}</td>
            <td>
              {item.evidence.length === 0
                ? '—'
                : item.evidence.map((e, i) => (
                    <span key={`${e.label}-${i}`}>
                      {i > 0 && ', '}
                      {e.href ? <Link href={e.href}>{e.label}</Link> : <code>{e.label}</code>}
                    </span>
                  ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function History({ entries }: { entries: Review['history'] }) {
  if (entries.length === 0) return <p className="muted">No decision yet.</p>;
  return (
    <table aria-label="Go-live history">
      <caption>History, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Move</th>
          <th scope="col">Note</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((h) => (
          <tr key={h.id}>
            <td>
              <TimeCell at={h.at} />
            </td>
            <td>
              <ShortId id={h.actor} />
            </td>
            <td>
              {h.from} → {h.to}
            </td>
            <td>{h.note ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DecisionForm({ partnerId, status, onDecided }: { partnerId: string; status: Review['status']; onDecided: () => void }) {
  const [requested, request] = useMutation(RequestGoLive);
  const [approved, approve] = useMutation(ApproveGoLive);
  const [rejected, reject] = useMutation(RejectGoLive);
  const form = useForm<DecisionValues>({ resolver: zodResolver(decisionForm), mode: 'onChange', defaultValues: { note: '', email: '' } });
  const errors = [...apiErrors(requested.error), ...apiErrors(approved.error), ...apiErrors(rejected.error)];
  const noteError = form.formState.errors.note?.message ?? errorFor(errors, 'note');
  const emailError = form.formState.errors.email?.message ?? errorFor(errors, 'email');
  const busy = requested.fetching || approved.fetching || rejected.fetching;
  const handover: Handover | null | undefined = approved.data?.approveGoLive.handover;
  const decide = (act: (vars: { partnerId: string; note: string | null; email: string | null }) => Promise<{ data?: unknown }>) =>
    form.handleSubmit(async ({ note, email }) => {
      const done = await act({ partnerId, note: note || null, email: email || null });
      if (done.data) {
        form.reset({ note: '', email: '' });
        onDecided();
      }
    });
  const canRequest = status === 'not_requested' || status === 'rejected';
  const canDecide = status === 'requested';
  return (
    <>
      {handover && (
        <p className="notice" role="status">
          Production credential <code>{handover.clientId}</code> issued; its one-time link went to {handover.email} (until{' '}
          {formatTime(handover.expiresAt)}).
        </p>
      )}
      {(canRequest || canDecide) && (
        <form className="inline" onSubmit={(e) => e.preventDefault()} noValidate aria-label="Go-live decision">
          <Field label={<>Review note {canDecide && '(the reason, when rejecting)'}</>} error={noteError}>
            <textarea rows={2} cols={48} aria-invalid={Boolean(noteError)} {...form.register('note')} />
          </Field>
          {canDecide && (
            <Field label="Partner e-mail (approve: hand the production credential over; reject: send the reason)" error={emailError}>
              <input type="email" size={32} aria-invalid={Boolean(emailError)} {...form.register('email')} />
            </Field>
          )}
          {canRequest && (
            <button type="button" disabled={busy} onClick={decide(request)}>
              Record go-live request
            </button>
          )}
          {canDecide && (
            <>
              <button type="button" className="primary" disabled={busy} onClick={decide(approve)}>
                Approve go-live
              </button>
              <button type="button" className="danger" disabled={busy} onClick={decide(reject)}>
                Reject go-live
              </button>
            </>
          )}
          <ErrorList errors={errors} exceptParams={['note', 'email']} />
        </form>
      )}
    </>
  );
}
