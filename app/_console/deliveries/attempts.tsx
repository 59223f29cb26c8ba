import { TimeCell } from '../ui/cells';
import { formatTime } from '../ui/format';
import { ResponseStatus } from './outcome';

export interface AttemptSummary {
  id: string;
  number: number;
  trigger: string;
  requestedBy: string | null;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  errorKind: string | null;
  resolvedAddress: string | null;
}

export interface Attempt extends AttemptSummary {
  errorMessage: string | null;
  requestHeaders: { name: string; value: string }[];
  responseHeaders: { name: string; value: string }[] | null;
  responseBodyExcerpt: string | null;
}

/** Every attempt of a delivery in one table: the order timeline shows them this way. */
export function AttemptTable({ caption, attempts }: { caption: string; attempts: AttemptSummary[] }) {
  return (
    <table className="attempts">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Started</th>
          <th scope="col">Trigger</th>
          <th scope="col">Response</th>
          <th scope="col">Duration</th>
          <th scope="col">Address</th>
        </tr>
      </thead>
      <tbody>
        {attempts.length === 0 ? (
          <tr>
            <td colSpan={6} className="muted">
              Not attempted yet.
            </td>
          </tr>
        ) : (
          attempts.map((a) => (
            <tr key={a.id}>
              <td>{a.number}</td>
              <td>
                <TimeCell at={a.startedAt} />
              </td>
              <td>
                {a.trigger}
                {a.requestedBy && <span className="muted"> by {a.requestedBy}</span>}
              </td>
              <td>
                <ResponseStatus status={a.responseStatus} errorKind={a.errorKind} />
              </td>
              <td>{a.durationMs} ms</td>
              <td>{a.resolvedAddress ?? '—'}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

function Headers({ caption, headers }: { caption: string; headers: { name: string; value: string }[] }) {
  return (
    <table className="headers">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Header</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {headers.map((h, i) => (
          <tr key={`${h.name}-${i}`}>
            <td>
              <code>{h.name}</code>
            </td>
            <td>
              <code>{h.value}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One attempt as sent and as answered; a <details> element, so it opens by keyboard too. */
export function AttemptDetails({ attempt, open }: { attempt: Attempt; open?: boolean }) {
  const a = attempt;
  return (
    <details className="attempt" open={open} id={`attempt-${a.number}`}>
      <summary>
        Attempt {a.number}: <ResponseStatus status={a.responseStatus} errorKind={a.errorKind} /> in {a.durationMs} ms,{' '}
        {formatTime(a.startedAt)} ({a.trigger}
        {a.requestedBy ? ` by ${a.requestedBy}` : ''})
      </summary>
      <dl className="facts">
        <dt>Resolved address</dt>
        <dd>{a.resolvedAddress ?? 'never connected'}</dd>
        <dt>Error kind</dt>
        <dd>{a.errorKind ?? 'none'}</dd>
        {a.errorMessage && (
          <>
            <dt>Error</dt>
            <dd>{a.errorMessage}</dd>
          </>
        )}
      </dl>
      <Headers caption={`Request headers of attempt ${a.number} (signatures masked)`} headers={a.requestHeaders} />
      {a.responseHeaders ? (
        <Headers caption={`Response headers of attempt ${a.number}`} headers={a.responseHeaders} />
      ) : (
        <p className="muted">No response.</p>
      )}
      {a.responseBodyExcerpt !== null && (
        <>
          <h4 id={`body-${a.id}`}>Response body (first 2 KiB)</h4>
          <pre aria-labelledby={`body-${a.id}`}>{a.responseBodyExcerpt || '(empty)'}</pre>
        </>
      )}
    </details>
  );
}
