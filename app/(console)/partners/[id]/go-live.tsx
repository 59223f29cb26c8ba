'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useMutation } from 'urql';
import { decideGoLiveInput } from '@/server/partners/schemas';
import { graphql } from '../../../_console/graphql';
import { apiErrors, ErrorList, errorFor } from '../../../_console/ui/errors';
import { useMay } from '../../../_console/viewer';
import type { PartnerData, Refresh } from './query';

const RequestGoLive = graphql(`
  mutation RequestGoLive($partnerId: ID!, $note: String) {
    requestGoLive(partnerId: $partnerId, note: $note) {
      status
      note
    }
  }
`);

const ApproveGoLive = graphql(`
  mutation ApproveGoLive($partnerId: ID!, $note: String) {
    approveGoLive(partnerId: $partnerId, note: $note) {
      status
      note
    }
  }
`);

const RejectGoLive = graphql(`
  mutation RejectGoLive($partnerId: ID!, $note: String) {
    rejectGoLive(partnerId: $partnerId, note: $note) {
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

const noteOnly = decideGoLiveInput.pick({ note: true });

export function GoLiveSection({ partner, refresh }: { partner: PartnerData; refresh: Refresh }) {
  const { status, note } = partner.goLive;
  const mayDecide = useMay('approveGoLive');
  return (
    <section aria-labelledby="go-live">
      <h2 id="go-live">Go-live review</h2>
      <dl className="pairs">
        <dt>Status</dt>
        <dd data-testid="go-live-status">{STATUS_TEXT[status]}</dd>
        <dt>Last note</dt>
        <dd>{note ?? '—'}</dd>
      </dl>
      {mayDecide && <DecisionForm partnerId={partner.id} status={status} onDecided={refresh} />}
    </section>
  );
}

function DecisionForm({
  partnerId,
  status,
  onDecided,
}: {
  partnerId: string;
  status: PartnerData['goLive']['status'];
  onDecided: Refresh;
}) {
  const [requested, request] = useMutation(RequestGoLive);
  const [approved, approve] = useMutation(ApproveGoLive);
  const [rejected, reject] = useMutation(RejectGoLive);
  const form = useForm<{ note?: string }>({ resolver: zodResolver(noteOnly), mode: 'onChange', defaultValues: { note: '' } });
  const errors = [...apiErrors(requested.error), ...apiErrors(approved.error), ...apiErrors(rejected.error)];
  const noteError = form.formState.errors.note?.message ?? errorFor(errors, 'note');
  const busy = requested.fetching || approved.fetching || rejected.fetching;
  const decide = (act: (vars: { partnerId: string; note: string | null }) => Promise<{ data?: unknown }>) =>
    form.handleSubmit(async ({ note }) => {
      const done = await act({ partnerId, note: note || null });
      if (done.data) {
        form.reset({ note: '' });
        onDecided();
      }
    });
  const canRequest = status === 'not_requested' || status === 'rejected';
  const canDecide = status === 'requested';
  if (!canRequest && !canDecide) return null;
  return (
    <form className="inline" onSubmit={(e) => e.preventDefault()} noValidate aria-label="Go-live decision">
      <label>
        Review note
        <textarea rows={2} cols={48} aria-invalid={Boolean(noteError)} {...form.register('note')} />
        {noteError && <span className="error">{noteError}</span>}
      </label>
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
      <ErrorList errors={errors} exceptParams={['note']} />
    </form>
  );
}
