'use client';

import { useState } from 'react';
import { useMay } from '../viewer';
import { ReplayForm } from './replay-form';
import { ReplayList } from './replay-list';

/** One subscription's replays: "Replay a range" for roles that may, and every replay's progress. */
export function ReplayPanel({ webhookId }: { webhookId: string }) {
  const mayReplay = useMay('startReplay');
  // A new key after a start re-reads the list at once; it then polls while the replay runs.
  const [generation, setGeneration] = useState(0);
  return (
    <section aria-labelledby="replays-of-subscription" className="panel">
      <h2 id="replays-of-subscription">Replays of this subscription</h2>
      {mayReplay && <ReplayForm webhookId={webhookId} onStarted={() => setGeneration((g) => g + 1)} />}
      <ReplayList
        key={generation}
        filter={{ subscriptionId: webhookId }}
        first={10}
        caption={`Replays of subscription ${webhookId}, newest first`}
      />
    </section>
  );
}
