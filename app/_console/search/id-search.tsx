'use client';

import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useClient } from 'urql';
import { pastedId } from '@/server/lookup/schemas';
import { graphql, type ResultOf } from '../graphql';
import { TimeCell } from '../ui/cells';

const FindById = graphql(`
  query FindById($id: String!) {
    findById(id: $id) {
      kind
      id
      matchedBy
      partnerId
      partnerName
      environment
      label
      subscriptionId
      failure {
        method
        path
        status
        code
        message
        at
      }
    }
  }
`);

type Match = ResultOf<typeof FindById>['findById'][number];

type Answer =
  | { state: 'idle' }
  | { state: 'asking'; id: string }
  | { state: 'found'; id: string; matches: Match[] }
  | { state: 'failed'; id: string; message: string };

const KIND: Record<Match['kind'], string> = {
  order: 'Order',
  event: 'Event',
  delivery: 'Delivery',
  subscription: 'Subscription',
  replay: 'Replay',
  partner: 'Partner',
  credential: 'Credential',
  quote: 'Quote',
  failed_request: 'Failed request',
};

/** How an object was found, when not by its own id. */
function foundBy(match: Match): string | undefined {
  if (match.kind === 'failed_request') return undefined;
  switch (match.matchedBy) {
    case 'external_id':
      return 'found by its external id';
    case 'request_id':
      return 'created by this request';
    case 'quote_id':
      return 'made from this quote';
    default:
      return undefined;
  }
}

/**
 * Where the console shows a match: its own page, or the list filtered to it when it has none (an event,
 * a replay: its subscription's replays), or its partner's page (a credential, an unused quote). A failed
 * request has no page: the answer shows it.
 */
function pageOf(match: Match): string | undefined {
  switch (match.kind) {
    case 'order':
      return `/orders/${match.id}`;
    case 'event':
      return `/events?id=${match.id}`;
    case 'delivery':
      return `/deliveries/${match.id}`;
    case 'subscription':
      return `/subscriptions/${match.id}`;
    case 'replay':
      return `/replays?subscriptionId=${match.subscriptionId}`;
    case 'partner':
      return `/partners/${match.id}`;
    case 'credential':
      return `/partners/${match.partnerId}#credentials`;
    case 'quote':
      return `/partners/${match.partnerId}`;
    case 'failed_request':
      return undefined;
  }
}

/**
 * The header's box for any id a ticket quotes (order, external id, event, delivery, subscription, replay,
 * partner, client id, request id): Enter opens the one object it names, lists them when it names several,
 * and says so when it names none.
 */
export function IdSearch() {
  const client = useClient();
  const router = useRouter();
  const pathname = usePathname();
  const [answer, setAnswer] = useState<Answer>({ state: 'idle' });
  const input = useRef<HTMLInputElement>(null);
  // A newer question wins: an answer to an older one is dropped.
  const asked = useRef(0);

  // Another page: the last answer is about the page left.
  useEffect(() => setAnswer({ state: 'idle' }), [pathname]);

  async function find(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const id = pastedId.parse(input.current?.value ?? '');
    if (!id) return setAnswer({ state: 'idle' });
    const question = ++asked.current;
    setAnswer({ state: 'asking', id });
    const result = await client.query(FindById, { id }, { requestPolicy: 'network-only' }).toPromise();
    if (question !== asked.current) return;
    if (result.error || !result.data) {
      return setAnswer({
        state: 'failed',
        id,
        message: result.error?.graphQLErrors[0]?.message ?? 'The service did not answer; try again.',
      });
    }
    const matches = result.data.findById;
    const page = matches.length === 1 ? pageOf(matches[0]!) : undefined;
    if (page) {
      if (input.current) input.current.value = '';
      setAnswer({ state: 'idle' });
      router.push(page);
      return;
    }
    setAnswer({ state: 'found', id, matches });
  }

  function onKeyDown(event: KeyboardEvent<HTMLFormElement>) {
    if (event.key === 'Escape') setAnswer({ state: 'idle' });
  }

  return (
    <form role="search" aria-label="Find by id" className="id-search" onSubmit={find} onKeyDown={onKeyDown}>
      <input
        ref={input}
        type="search"
        name="id"
        aria-label="Find by id"
        placeholder="Find by id (order, event, request…)"
        autoComplete="off"
        spellCheck={false}
        aria-describedby="id-search-answer"
      />
      <div id="id-search-answer" aria-live="polite" className={answer.state === 'idle' ? 'visually-hidden' : 'id-search-answer'}>
        <Said answer={answer} onOpen={() => setAnswer({ state: 'idle' })} />
      </div>
    </form>
  );
}

function Said({ answer, onOpen }: { answer: Answer; onOpen: () => void }) {
  switch (answer.state) {
    case 'idle':
      return null;
    case 'asking':
      return <p aria-busy="true">Looking for {answer.id}…</p>;
    case 'failed':
      return (
        <p role="alert" className="error">
          {answer.message}
        </p>
      );
    case 'found':
      if (answer.matches.length === 0) return <p>Nothing matches {answer.id}</p>;
      return (
        <>
          <p>
            {answer.matches.length} {answer.matches.length === 1 ? 'object matches' : 'objects match'} {answer.id}:
          </p>
          <ul aria-label={`Objects matching ${answer.id}`}>
            {answer.matches.map((m) => (
              <li key={`${m.kind} ${m.id}`}>
                <MatchLine match={m} onOpen={onOpen} />
              </li>
            ))}
          </ul>
        </>
      );
  }
}

function MatchLine({ match, onOpen }: { match: Match; onOpen: () => void }) {
  const page = pageOf(match);
  const name = (
    <>
      {KIND[match.kind]} <code>{match.id}</code>
    </>
  );
  const by = foundBy(match);
  return (
    <>
      {page ? (
        <Link href={page} onClick={onOpen}>
          {name}
        </Link>
      ) : (
        <strong>{name}</strong>
      )}
      {match.kind !== 'partner' && (
        <>
          {' · '}
          <Link href={`/partners/${match.partnerId}`} onClick={onOpen}>
            {match.partnerName}
          </Link>
          {match.environment && <span className="muted"> ({match.environment})</span>}
        </>
      )}
      <br />
      <span className="muted">
        {match.label}
        {by && ` · ${by}`}
      </span>
      {match.failure && (
        <>
          <br />
          {match.failure.message} · <TimeCell at={match.failure.at} />
        </>
      )}
    </>
  );
}
