'use client';

import { useState } from 'react';
import { useMay } from '../viewer';
import { ReplayForm } from './replay-form';
import { ReplayList } from './replay-list';

/** One subscription's replays: "Replay a range" for roles that may, and every replay's progress. */
export function ReplayPanel({
  webhookId,
  onReplayFinished,
  onRefreshDelay,
}: {
  webhookId: string;
  onReplayFinished?: () => void;
  /** How often the replays are read again (null: not): the log of their deliveries follows them. */
  onRefreshDelay?: (ms: number | null) => void;
}) {
  const mayReplay = useMay('startReplay');
  // Bumped after a start: the list re-reads at once, then polls while the replay runs.
  const [generation, setGeneration] = useState(0);
  return (
    <section aria-labelledby="replays-of-subscription" className="panel">
      <h2 id="replays-of-subscription">Replays of this subscription</h2>
      {mayReplay && <ReplayForm webhookId={webhookId} onStarted={() => setGeneration((g) => g + 1)} />}
      <ReplayList
        refresh={generation}
        onFinished={onReplayFinished}
        onRefreshDelay={onRefreshDelay}
        filter={{ subscriptionId: webhookId }}
        first={10}
        caption={`Replays of subscription ${webhookId}, newest first`}
      />
    </section>
  );
}
