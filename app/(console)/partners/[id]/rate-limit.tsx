'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useMutation } from 'urql';
import { z } from 'zod';
import { setRateLimitInput } from '@/server/partners/schemas';
import { graphql } from '../../../_console/graphql';
import { apiErrors, ErrorList, fieldErrors } from '../../../_console/ui/errors';
import { Field } from '../../../_console/ui/field';
import { useMay } from '../../../_console/viewer';
import type { PartnerData, Refresh } from './query';

const SetRateLimit = graphql(`
  mutation SetRateLimit($partnerId: ID!, $perSecond: Int) {
    setRateLimit(partnerId: $partnerId, perSecond: $perSecond) {
      override
      perSecond
      burst
    }
  }
`);

// The form sets a number; restoring the default (null) is its own button.
const perSecondOnly = z.object({ perSecond: setRateLimitInput.shape.perSecond.unwrap() });

export function RateLimitSection({ partner, refresh }: { partner: PartnerData; refresh: Refresh }) {
  const { override, perSecond, burst } = partner.rateLimit;
  return (
    <section aria-labelledby="rate-limit">
      <h2 id="rate-limit">Rate limit</h2>
      <dl className="pairs">
        <dt>Effective</dt>
        <dd data-testid="rate-limit-effective">
          {perSecond} requests per second per credential (burst {burst})
        </dd>
        <dt>Override</dt>
        <dd>{override === null ? 'none: the platform default applies' : `${override} per second`}</dd>
      </dl>
      {useMay('setRateLimit') && <RateLimitForm partnerId={partner.id} override={override} onSet={refresh} />}
    </section>
  );
}

function RateLimitForm({ partnerId, override, onSet }: { partnerId: string; override: number | null; onSet: Refresh }) {
  const [result, set] = useMutation(SetRateLimit);
  const form = useForm<{ perSecond: number }>({ resolver: zodResolver(perSecondOnly), mode: 'onChange' });
  const errors = apiErrors(result.error);
  const fieldError = fieldErrors(form, errors)('perSecond');
  const submit = form.handleSubmit(async ({ perSecond }) => {
    const done = await set({ partnerId, perSecond });
    if (done.data) onSet();
  });
  return (
    <>
      <form className="inline" onSubmit={submit} noValidate aria-label="Set the rate limit">
        <Field label="Requests per second" error={fieldError}>
          <input
            type="number"
            min={1}
            max={100000}
            step={1}
            aria-invalid={Boolean(fieldError)}
            {...form.register('perSecond', { valueAsNumber: true })}
          />
        </Field>
        <button type="submit" className="primary" disabled={result.fetching}>
          Set limit
        </button>
        {override !== null && (
          <button
            type="button"
            disabled={result.fetching}
            onClick={async () => {
              const done = await set({ partnerId, perSecond: null });
              if (done.data) onSet();
            }}
          >
            Restore default
          </button>
        )}
      </form>
      <ErrorList errors={errors} exceptParams={['perSecond']} />
    </>
  );
}
