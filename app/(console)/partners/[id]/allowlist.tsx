'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useMutation } from 'urql';
import type { z } from 'zod';
import { allowlistEntryInput } from '@/server/allowlist/schemas';
import { normaliseCidr } from '@/server/auth/cidr';
import { graphql } from '../../../_console/graphql';
import { DataTable } from '../../../_console/ui/data-table';
import { apiErrors, ErrorList, fieldErrors } from '../../../_console/ui/errors';
import { Field } from '../../../_console/ui/field';
import { Pager } from '../../../_console/ui/pager';
import { useMay } from '../../../_console/viewer';
import { allowlistColumns } from './columns';
import type { PartnerData, Refresh } from './query';

const AddAllowlistEntry = graphql(`
  mutation AddAllowlistEntry($partnerId: ID!, $cidr: String!, $label: String) {
    addAllowlistEntry(partnerId: $partnerId, cidr: $cidr, label: $label) {
      cidr
      label
    }
  }
`);

export function AllowlistSection({
  partner,
  refresh,
  after,
  onPage,
}: {
  partner: PartnerData;
  refresh: Refresh;
  after?: string;
  onPage: (after: string | undefined) => void;
}) {
  const mayAdd = useMay('addAllowlistEntry');
  const mayRemove = useMay('removeAllowlistEntry');
  const columns = allowlistColumns({ partnerId: partner.id, mayRemove, refresh });
  const empty = partner.allowlist.nodes.length === 0 && !after;
  return (
    <section aria-labelledby="allowlist">
      <h2 id="allowlist">IP allowlist</h2>
      <p className="muted">
        {empty
          ? 'Empty: the partner API accepts this partner from any address.'
          : 'The partner API accepts this partner only from these ranges; every process applies a change within seconds.'}
      </p>
      {mayAdd && <AddEntryForm partnerId={partner.id} onAdded={refresh} />}
      <DataTable caption="Address ranges the partner may call from" columns={columns} rows={partner.allowlist.nodes} empty="No entries." />
      <Pager pageInfo={partner.allowlist.pageInfo} after={after} onPage={onPage} />
    </section>
  );
}

type EntryForm = z.input<typeof allowlistEntryInput>;

function AddEntryForm({ partnerId, onAdded }: { partnerId: string; onAdded: Refresh }) {
  const [result, add] = useMutation(AddAllowlistEntry);
  // Validated as typed, with the server's own rule (server/auth/cidr.ts).
  const form = useForm<EntryForm>({ resolver: zodResolver(allowlistEntryInput), mode: 'onChange', defaultValues: { cidr: '', label: '' } });
  const errors = apiErrors(result.error);
  const cidr = form.watch('cidr');
  const normalised = cidr ? normaliseCidr(cidr) : undefined;
  const fieldError = fieldErrors(form, errors);
  const submit = form.handleSubmit(async (values) => {
    const done = await add({ partnerId, cidr: values.cidr, label: values.label || null });
    if (done.data) {
      form.reset({ cidr: '', label: '' });
      onAdded();
    }
  });
  return (
    <>
      <form className="inline" onSubmit={submit} noValidate aria-label="Add an allowlist entry">
        <label>
          CIDR or address
          <input
            placeholder="203.0.113.0/24"
            aria-invalid={Boolean(fieldError('cidr'))}
            aria-describedby="cidr-help"
            autoComplete="off"
            {...form.register('cidr')}
          />
          <span id="cidr-help" className={fieldError('cidr') ? 'error' : 'muted'}>
            {fieldError('cidr') ??
              (normalised && normalised !== cidr.trim() ? `Stored as ${normalised}` : 'IPv4 or IPv6; a bare address is /32 or /128')}
          </span>
        </label>
        <Field label="Label (optional)" error={fieldError('label')}>
          <input aria-invalid={Boolean(fieldError('label'))} autoComplete="off" {...form.register('label')} />
        </Field>
        <button type="submit" className="primary" disabled={result.fetching}>
          Add to allowlist
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['cidr', 'label']} />
    </>
  );
}
