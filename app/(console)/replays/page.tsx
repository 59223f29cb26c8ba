'use client';

import { ReplayList } from '../../_console/replays/replay-list';
import { FilterField, FilterForm } from '../../_console/ui/filter-form';
import { useUrlState } from '../../_console/ui/url-state';

const FILTERS = ['status', 'partnerId', 'subscriptionId'] as const;
const KEYS = [...FILTERS, 'after'] as const;
const STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];

export default function Replays() {
  const [state, setState] = useUrlState(KEYS);
  const filter = { status: state.status as Status | undefined, partnerId: state.partnerId, subscriptionId: state.subscriptionId };
  return (
    <>
      <h1>Replays</h1>
      <p className="muted">
        Start a replay from the deliveries of one subscription (filter the <a href="/deliveries">log</a> by subscription id).
      </p>
      {/* ReplayList shows the query's errors: none reaches this form. */}
      <FilterForm label="Filter replays" keys={FILTERS} errors={[]}>
        <FilterField name="status" label="Status" options={STATUSES} />
        <FilterField name="partnerId" label="Partner id" />
        <FilterField name="subscriptionId" label="Subscription id" />
      </FilterForm>
      <ReplayList
        filter={filter}
        after={state.after}
        caption="Replays of every partner, newest first, with their progress"
        onPage={(after) => setState({ after })}
      />
    </>
  );
}
