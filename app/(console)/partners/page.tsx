'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useMutation, useQuery } from 'urql';
import type { z } from 'zod';
import { createPartnerInput } from '@/server/partners/schemas';
import { graphql, type ResultOf } from '../../_console/graphql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList, errorFor } from '../../_console/ui/errors';
import { formatTime } from '../../_console/ui/format';
import { Pager } from '../../_console/ui/pager';
import { useUrlState } from '../../_console/ui/url-state';
import { useMay } from '../../_console/viewer';

const PartnersPage = graphql(`
  query PartnersPage($search: String, $after: String) {
    partners(search: $search, after: $after, first: 25) {
      nodes {
        id
        name
        createdAt
        goLive {
          status
        }
        rateLimit {
          perSecond
          override
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const CreatePartner = graphql(`
  mutation CreatePartner($name: String!) {
    createPartner(name: $name) {
      id
      name
    }
  }
`);

type PartnerRow = ResultOf<typeof PartnersPage>['partners']['nodes'][number];

const columns: ColumnDef<PartnerRow, unknown>[] = [
  { header: 'Name', cell: ({ row }) => <Link href={`/partners/${row.original.id}`}>{row.original.name}</Link> },
  { header: 'ID', cell: ({ row }) => <code>{row.original.id}</code> },
  { header: 'Go-live', cell: ({ row }) => row.original.goLive.status.replace('_', ' ') },
  {
    header: 'Rate limit',
    cell: ({ row }) => `${row.original.rateLimit.perSecond}/s${row.original.rateLimit.override === null ? ' (default)' : ''}`,
  },
  { header: 'Created', cell: ({ row }) => formatTime(row.original.createdAt) },
];

export default function Partners() {
  const [{ q, after }, setUrl] = useUrlState(['q', 'after'] as const);
  const [{ data, error, fetching }] = useQuery({ query: PartnersPage, variables: { search: q ?? null, after: after ?? null } });
  const [draft, setDraft] = useState(q ?? '');
  const errors = apiErrors(error);
  return (
    <>
      <h1>Partners</h1>
      {useMay('createPartner') && <CreatePartnerForm />}
      <h2>All partners</h2>
      <form
        className="inline"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setUrl({ q: draft.trim(), after: undefined });
        }}
      >
        <label>
          Search by name or id
          <input
            type="search"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            aria-invalid={Boolean(errorFor(errors, 'search'))}
          />
          {errorFor(errors, 'search') && <span className="error">{errorFor(errors, 'search')}</span>}
        </label>
        <button type="submit">Search</button>
        {q && (
          <button
            type="button"
            onClick={() => {
              setDraft('');
              setUrl({ q: undefined, after: undefined });
            }}
          >
            Clear search
          </button>
        )}
      </form>
      <ErrorList errors={errors} exceptParams={['search']} />
      <DataTable
        caption={q ? `Partners matching “${q}”, newest first` : 'Partners, newest first'}
        columns={columns}
        rows={data?.partners.nodes ?? []}
        empty={fetching ? 'Loading…' : q ? 'No partner matches.' : 'No partners yet.'}
      />
      {data && <Pager pageInfo={data.partners.pageInfo} after={after} onPage={(next) => setUrl({ after: next })} />}
    </>
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
        <label>
          Partner name
          <input aria-invalid={Boolean(nameError)} {...form.register('name')} />
          {nameError && <span className="error">{nameError}</span>}
        </label>
        <button type="submit" className="primary" disabled={result.fetching}>
          Create partner
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['name']} />
    </section>
  );
}
