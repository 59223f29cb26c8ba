'use client';

import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { createReplayInput, type REPLAY_MODES } from '@/server/replays/schemas';
import { graphql } from '../graphql';
import { apiErrors, ErrorList, errorFor } from '../ui/errors';
import { Field } from '../ui/field';
import { notATime, TimeInput } from '../ui/time-field';
import { fromTimeInput } from '../ui/time-input';

const StartReplay = graphql(`
  mutation StartReplay(
    $webhookId: ID!
    $since: DateTimeISO!
    $until: DateTimeISO
    $eventTypes: [String!]
    $only: ReplayMode
    $dryRun: Boolean!
  ) {
    startReplay(webhookId: $webhookId, since: $since, until: $until, eventTypes: $eventTypes, only: $only, dryRun: $dryRun) {
      dryRun
      matched
      firstEventIds
      replay {
        id
      }
    }
  }
`);

type Mode = (typeof REPLAY_MODES)[number];
interface Request {
  since: string;
  until?: string;
  eventTypes?: string[];
  only: Mode;
}

// The form's names for the server schema's fields (the partner API's replay body).
const PARAM_OF: Record<string, string> = { since: 'since', until: 'until', event_types: 'eventTypes', only: 'only' };

/**
 * "Replay a range": the window is checked with the partner API's own zod schema as typed, then a dry run
 * shows how many events would go and the first ids; only that preview's button starts the replay.
 */
export function ReplayForm({ webhookId, onStarted }: { webhookId: string; onStarted: () => void }) {
  const [result, start] = useMutation(StartReplay);
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState<{ request: Request; matched: number; firstEventIds: string[] } | null>(null);
  const [started, setStarted] = useState<string | null>(null);
  const errors = apiErrors(result.error);
  const message = (name: string) =>
    invalid[name] ?? errorFor(errors, name) ?? errorFor(errors, Object.keys(PARAM_OF).find((k) => PARAM_OF[k] === name) ?? name);
  const dayAgo = new Date(Date.now() - 86_400_000).toISOString();

  async function onPreview(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setPreview(null);
    setStarted(null);
    const form = new FormData(e.currentTarget);
    const [sinceText, untilText] = [form.get('since') as string, form.get('until') as string];
    const since = fromTimeInput(sinceText);
    const until = fromTimeInput(untilText);
    const types = (form.get('eventTypes') as string)
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean);
    const only = form.get('only') as Mode;
    const unix = (iso: string | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) : undefined);
    const checked = createReplayInput.safeParse({
      since: unix(since) ?? -1,
      ...(until ? { until: unix(until) } : {}),
      ...(types.length ? { event_types: types } : {}),
      only,
      dry_run: true,
    });
    const found: Record<string, string> = {};
    if (!since) found.since = sinceText.trim() ? notATime() : 'Choose when the window starts.';
    if (untilText.trim() && !until) found.until = notATime();
    if (since && until && until <= since) found.until = 'Must be after the start.';
    if (!checked.success) {
      for (const issue of checked.error.issues) {
        const name = PARAM_OF[String(issue.path[0])] ?? 'since';
        found[name] ??= issue.message;
      }
    }
    setInvalid(found);
    if (Object.keys(found).length > 0 || !since) return;
    const request: Request = { since, until, eventTypes: types.length ? types : undefined, only };
    const done = await start({ webhookId, ...request, dryRun: true });
    if (done.data) setPreview({ request, matched: done.data.startReplay.matched, firstEventIds: done.data.startReplay.firstEventIds });
  }

  async function onConfirm() {
    if (!preview) return;
    const done = await start({ webhookId, ...preview.request, dryRun: false });
    if (done.data?.startReplay.replay) {
      setStarted(done.data.startReplay.replay.id);
      setPreview(null);
      onStarted();
    }
  }

  return (
    <section aria-labelledby="replay-range">
      <h3 id="replay-range">Replay a range</h3>
      <form className="inline" onSubmit={onPreview} onChange={() => setPreview(null)} noValidate aria-label="Replay a range">
        <Field label="Since" error={message('since')} errorId="replay-since-error">
          <TimeInput
            name="since"
            defaultValue={dayAgo}
            invalid={Boolean(message('since'))}
            errorId={message('since') && 'replay-since-error'}
          />
        </Field>
        <Field label="Until (empty: now)" error={message('until')} errorId="replay-until-error">
          <TimeInput name="until" invalid={Boolean(message('until'))} errorId={message('until') && 'replay-until-error'} />
        </Field>
        <Field label="Event types (empty: all the subscription takes)" error={message('eventTypes')}>
          <input name="eventTypes" placeholder="order.created, order.delivered" aria-invalid={Boolean(message('eventTypes'))} />
        </Field>
        <label>
          Only
          <select name="only" defaultValue="all">
            <option value="all">all events</option>
            <option value="failed">failed: never delivered</option>
            <option value="missing">missing: never sent</option>
          </select>
        </label>
        <button type="submit" disabled={result.fetching}>
          Preview
        </button>
      </form>
      <ErrorList errors={errors} exceptParams={['since', 'until', 'event_types', 'eventTypes', 'only']} />
      {preview && (
        <div className="notice" role="status" aria-label="Replay preview">
          <p>
            <strong>{preview.matched}</strong> event{preview.matched === 1 ? '' : 's'} would be sent again, with their original ids.
          </p>
          {preview.firstEventIds.length > 0 && (
            <p>
              First: <code>{preview.firstEventIds.join(', ')}</code>
            </p>
          )}
          <button type="button" className="primary" onClick={onConfirm} disabled={result.fetching || preview.matched === 0}>
            Replay {preview.matched} event{preview.matched === 1 ? '' : 's'}
          </button>
        </div>
      )}
      {started && (
        <p role="status">
          Replay <code>{started}</code> started.
        </p>
      )}
    </section>
  );
}
