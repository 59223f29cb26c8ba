/**
 * Whose clock a time is read on: the browser's language and time zone unless given (tests give them). The
 * console's pages are client components that render data only after the viewer query, in the browser, so
 * the server never writes a time in its own zone for the browser to contradict.
 */
export interface Clock {
  locale?: string;
  timeZone?: string;
}

/**
 * An API time (ISO 8601) as the operator reads it: in the browser's language and time zone, to the second,
 * the zone named ("26 Nov 2026, 14:03:12 GMT", "Nov 26, 2026, 9:03:12 AM EST", "26 Nov 2026, 19:33:12 GMT+5:30").
 */
export function formatTime(iso: string | null | undefined, clock: Clock = {}): string {
  return iso ? timeParts(iso, clock).join('') : '—';
}

const TIME_PARTS: ReadonlySet<string> = new Set(['hour', 'minute', 'second', 'fractionalSecond', 'dayPeriod', 'timeZoneName']);

/**
 * formatTime's text as [date, what joins them, time], so a narrow column breaks a time between its date and
 * its time of day rather than anywhere ("26 Nov 2026," / "14:03:12 GMT").
 */
export function timeParts(iso: string, clock: Clock = {}): [string, string, string] {
  const parts = new Intl.DateTimeFormat(clock.locale, { dateStyle: 'medium', timeStyle: 'long', timeZone: clock.timeZone }).formatToParts(
    new Date(iso),
  );
  const firstOfTime = parts.findIndex((p) => TIME_PARTS.has(p.type));
  const join = firstOfTime > 0 && parts[firstOfTime - 1]!.type === 'literal' ? firstOfTime - 1 : firstOfTime;
  const text = (from: number, to?: number) =>
    parts
      .slice(from, to)
      .map((p) => p.value)
      .join('');
  return firstOfTime <= 0 ? [text(0), '', ''] : [text(0, join), text(join, firstOfTime), text(firstOfTime)];
}

/** A moment of today as the operator reads it: the time to the second, the zone named ("14:03:12 GMT"). */
export function formatClock(at: Date, clock: Clock = {}): string {
  return new Intl.DateTimeFormat(clock.locale, { timeStyle: 'long', timeZone: clock.timeZone }).format(at);
}

/** A chart's point in time: hours and minutes ("14:03", "02:03 PM"), with the date when the chart spans days. */
export function formatPoint(iso: string, { withDate = false, ...clock }: Clock & { withDate?: boolean } = {}): string {
  const format = withDate
    ? new Intl.DateTimeFormat(clock.locale, { dateStyle: 'short', timeStyle: 'short', timeZone: clock.timeZone })
    : new Intl.DateTimeFormat(clock.locale, { hour: '2-digit', minute: '2-digit', timeZone: clock.timeZone });
  return format.format(new Date(iso));
}

/** The browser's time zone as its IANA name ("Europe/London"): what typed times mean. */
export function zoneOf(clock: Clock = {}): string {
  return clock.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function formatPercent(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined ? '—' : `${(ratio * 100).toFixed(1)} %`;
}

/** A count the API stops at `limit`: at the limit it means at least that many ("1,000+"). */
export function atLeast(count: number, limit: number): string {
  return count >= limit ? `${limit.toLocaleString('en-US')}+` : String(count);
}

/** A wait as the operator reads it: "45 s", "3 min 20 s", "2 h 5 min". */
export function formatAge(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** A health chart's interval: "8 minutes"; in hours when whole ("1 hour", "4 hours": a window of 48 h or more). */
export function formatSpan(minutes: number): string {
  if (minutes % 60 !== 0) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return `${minutes / 60} hour${minutes === 60 ? '' : 's'}`;
}

const LONGEST_PIECE = 24;

/**
 * A URL cut where a line may break: after the scheme's `//`, before each `/`, `?`, `&` and `#`, after `=`;
 * a run of more than 24 characters without a hyphen (a token) is cut every 24. A table then narrows a URL's column to
 * its longest piece, not to one character ("https://localhost:41111/ti" / "meline"), nor keeps it whole.
 */
export function urlPieces(url: string): string[] {
  const pieces = url.split(/(?<=:\/\/)|(?<=[^/:])(?=\/)|(?=[?&#])|(?<==)/).filter(Boolean);
  // A hyphen already lets a line break: only a run without one is cut.
  return pieces.flatMap((piece) => piece.split(/(?<=-)/).flatMap((run) => run.match(new RegExp(`.{1,${LONGEST_PIECE}}`, 'gs')) ?? []));
}

/**
 * An id as tables show it: a prefix (`ci_`, `operator:`) kept, then the last 8 characters. The ids are ULIDs, whose
 * first 10 characters are the time they were made (ids of one day share most of them) and whose last
 * ones are random, so the end is what tells two apart. Anything else (a CIDR, an e-mail) is shown whole.
 */
export function shortId(id: string): string {
  const ulid = /^([a-z]+[_:])?[0-9A-HJKMNP-TV-Z]{26}$/.exec(id);
  return ulid ? `${ulid[1] ?? ''}…${id.slice(-8)}` : id;
}
