const CLASS: Record<string, string> = {
  succeeded: 'status-good',
  failed: 'status-bad',
  pending: 'status-warn',
  skipped: 'muted',
  completed: 'status-good',
  cancelled: 'muted',
  running: 'status-warn',
  queued: 'status-warn',
  delivering: 'status-warn',
  retrying: 'status-warn',
};

/** A delivery's outcome or a replay's status or phase, as a word with a colour (the word carries the meaning). */
export function Outcome({ value }: { value: string }) {
  return <span className={`outcome ${CLASS[value] ?? ''}`}>{value}</span>;
}

/** An HTTP status, or why there was none. */
export function ResponseStatus({ status, errorKind }: { status: number | null; errorKind: string | null }) {
  if (status !== null) return <span className={status >= 200 && status < 300 ? 'status-good' : 'status-bad'}>{status}</span>;
  return <span className={errorKind ? 'status-bad' : 'muted'}>{errorKind ?? '—'}</span>;
}
