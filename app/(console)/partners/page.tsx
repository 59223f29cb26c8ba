'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useRouter } from 'next/navigation';
import { useForm } from 'react-hook-form';
import { useMutation, useQuery } from 'urql';
import type { z } from 'zod';
import { createPartnerInput } from '@/server/partners/schemas';
import { graphql } from '../../_console/graphql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { Field } from '../../_console/ui/field';
import { FilterField, FilterForm } from '../../_console/ui/filter-form';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';
import { useMay } from '../../_console/viewer';
import { columns, olderVersionColumns } from './columns';
import { OlderVersionsPage, PartnersPage } from './query';

const CreatePartner = graphql(`
  mutation CreatePartner($name: String!) {
    createPartner(name: $name) {
      id
      name
    }
  }
`);

export default function Partners() {
  const [{ q, after, olderAfter }, setUrl] = useUrlState(['q', 'after', 'olderAfter'] as const);
  const [{ data, error, fetching }] = useQuery({ query: PartnersPage, variables: { search: q ?? null, after: after ?? null } });
  const errors = apiErrors(error);
  return (
    <>
      <h1>Partners</h1>
      {useMay('createPartner') && <CreatePartnerForm />}
      <h2>All partners</h2>
      <FilterForm label="Search partners" keys={['q']} errors={errors} clear="Clear search" paramsOf={() => ['search']}>
        <FilterField name="q" label="Search by name or id" type="search" />
      </FilterForm>
      <DataTable
        caption={q ? `Partners matching “${q}”, newest first` : 'Partners, newest first'}
        columns={columns}
        rows={data?.partners.nodes ?? []}
        empty={fetching ? 'Loading…' : q ? 'No partner matches.' : 'No partners yet.'}
      />
      {data && <Pager pageInfo={data.partners.pageInfo} after={after} onPage={(next) => setUrl({ after: next })} />}
      <OlderVersions after={olderAfter} onPage={(next) => setUrl({ olderAfter: next })} />
    </>
  );
}

/** Who to nudge before an old version's end: partners whose environments or subscriptions speak one. */
function OlderVersions({ after, onPage }: { after?: string; onPage: (after: string | undefined) => void }) {
  const [{ data, error, fetching }] = useQuery({ query: OlderVersionsPage, variables: { after: after ?? null } });
  const latest = data?.apiVersions.find((v) => v.latest)?.id ?? '';
  return (
    <section aria-labelledby="older-versions">
      <h2 id="older-versions">On older API versions</h2>
      <ErrorList errors={apiErrors(error)} />
      <DataTable
        caption={`Partners with an environment or a webhook subscription on a version older than ${latest || 'the latest'}, newest first`}
        columns={olderVersionColumns(latest)}
        rows={data?.partners.nodes ?? []}
        empty={fetching ? 'Loading…' : 'Every partner is on the latest version.'}
      />
      {data && <Pager pageInfo={data.partners.pageInfo} after={after} onPage={onPage} />}
    </section>
  );
}

type CreateForm = z.input<typeof createPartnerInput>;

/** Admin only; a new partner opens on its own page, where its credentials are issued. */
function CreatePartnerForm() {
  const router = useRouter();
  const [result, create] = useMutation(CreatePartner);
  const form = useForm<CreateForm>({ resolver: zodResolver(createPartnerInput), mode: 'onTouched' });
  const errors = apiErrors(result.error);
  const nameError = form.formState.errors.name?.message ?? errorFor(errors, 'name');
  const submit = form.handleSubmit(async ({ name }) => {
    const done = await create({ name });
    if (done.data) router.push(`/partners/${done.data.createPartner.id}`);
  });
  return (
    <section aria-labelledby="create-partner">
      <h2 id="create-partner">Create partner</h2>
      <form className="inline" onSubmit={submit} noValidate>
        <Field label="Partner name" error={nameError}>
          <input aria-invalid={Boolean(nameError)} {...form.register('name')} />
        </Field>
        <button type="submit" className="primary" disabled={result.fetching}>
          Create partner
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['name']} />
    </section>
  );
}
