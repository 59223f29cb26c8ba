'use client';

import { ReplayList } from '../../_console/replays/replay-list';
import { useUrlState } from '../../_console/ui/url-state';

const KEYS = ['status', 'partnerId', 'subscriptionId', 'after'] as const;
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
      <form
        key={KEYS.map((k) => state[k] ?? '').join('|')}
        className="inline filters"
        aria-label="Filter replays"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const text = (name: string) => (form.get(name) as string).trim() || undefined;
          setState({ status: text('status'), partnerId: text('partnerId'), subscriptionId: text('subscriptionId'), after: undefined });
        }}
      >
        <label>
          Status
          <select name="status" defaultValue={state.status ?? ''}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Partner id
          <input name="partnerId" defaultValue={state.partnerId ?? ''} spellCheck={false} />
        </label>
        <label>
          Subscription id
          <input name="subscriptionId" defaultValue={state.subscriptionId ?? ''} spellCheck={false} />
        </label>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ReplayList
        filter={filter}
        after={state.after}
        caption="Replays of every partner, newest first, with their progress"
        onPage={(after) => setState({ after })}
      />
    </>
  );
}
