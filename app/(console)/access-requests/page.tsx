'use client';

import { useQuery } from 'urql';
import { DataTable } from '../../_console/ui/data-table';
import { apiErrors, ErrorList } from '../../_console/ui/errors';
import { Options } from '../../_console/ui/field';
import { useUrlState } from '../../_console/ui/url-state';
import { useMay } from '../../_console/viewer';
import { columns } from './columns';
import { AccessRequestsPage, type Status } from './query';

const STATUSES: readonly Status[] = ['new', 'approved', 'rejected'];

export default function AccessRequests() {
  const [state, setState] = useUrlState(['status']);
  const status: Status = STATUSES.find((s) => s === state.status) ?? 'new';
  const [{ data, error }, refetch] = useQuery({ query: AccessRequestsPage, variables: { status } });
  const refresh = () => refetch({ requestPolicy: 'network-only' });
  const mayDecide = useMay('approveAccessRequest');
  return (
    <>
      <h1>Access requests</h1>
      <p>Requests from the public /access page, once their contact has confirmed the address.</p>
      <label>
        Status{' '}
        <select value={status} onChange={(e) => setState({ status: e.target.value })}>
          <Options values={STATUSES} />
        </select>
      </label>
      <ErrorList errors={apiErrors(error)} />
      <DataTable
        caption={`Access requests: ${status}`}
        columns={columns(status, mayDecide, refresh)}
        rows={data?.accessRequests.nodes ?? []}
        empty={`No ${status} requests.`}
      />
    </>
  );
}
