import type { Clock } from './format';

// Typed times, in the operator's order and zone. Chromium draws <input type="datetime-local"> in its own UI
// language whatever the page's (an en-GB operator of an en-US build saw mm/dd/yyyy), so the console's time
// fields are text fields written and read here: the numeric date and time as the browser's language writes
// them (dd/mm/yyyy, hh:mm for en-GB), meant in the browser's time zone.

type Part = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

const numeric = (clock: Clock, withSeconds = false) =>
  new Intl.DateTimeFormat(clock.locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    ...(withSeconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
    numberingSystem: 'latn',
    timeZone: clock.timeZone,
  });

const PLACEHOLDER: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {
  year: 'yyyy',
  month: 'mm',
  day: 'dd',
  hour: 'hh',
  minute: 'mm',
};

/** How a time is typed in the operator's language: "dd/mm/yyyy, hh:mm" (en-GB), "mm/dd/yyyy, hh:mm" (en-US). */
export function timeInputFormat(clock: Clock = {}): string {
  return numeric(clock)
    .formatToParts(Date.UTC(2026, 0, 15, 12, 0))
    .map((p) => (p.type === 'literal' ? p.value : (PLACEHOLDER[p.type] ?? '')))
    .join('');
}

/** An ISO time as a time field shows it (the operator's order and zone, to the minute); '' for none. */
export function toTimeInput(iso: string | undefined, clock: Clock = {}): string {
  if (!iso) return '';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? '' : numeric(clock).format(at);
}

/**
 * What the operator typed as an ISO time for the API and the URL; undefined for nothing, or for text that
 * is not a time. The date's numbers are read in the language's order (year first when typed with four
 * digits first, as in 2026-01-15T12:00), then hours, minutes and seconds if given (a trailing am/pm
 * honoured); the wall time is taken in the operator's zone, summer time included.
 */
export function fromTimeInput(text: string | undefined | null, clock: Clock = {}): string | undefined {
  const typed = text?.trim();
  if (!typed) return undefined;
  const numbers = typed.match(/\d+/g) ?? [];
  if (numbers.length < 3 || numbers.length > 6) return undefined;
  const order = numbers[0]!.length === 4 ? (['year', 'month', 'day'] as const) : dateOrder(clock);
  const date = Object.fromEntries(order.map((part, i) => [part, numbers[i]!])) as Record<'year' | 'month' | 'day', string>;
  if (date.year.length !== 4) return undefined;
  const [year, month, day] = [Number(date.year), Number(date.month), Number(date.day)];
  const [typedHour = 0, minute = 0, second = 0] = numbers.slice(3).map(Number);
  const meridiem = /([ap])\.?\s*m\.?$/i.exec(typed)?.[1]?.toLowerCase();
  if (meridiem && (typedHour < 1 || typedHour > 12)) return undefined;
  const hour = meridiem ? (typedHour % 12) + (meridiem === 'p' ? 12 : 0) : typedHour;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  // 31/02 would roll over into March: not a date.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  return new Date(instantOf(wall, clock)).toISOString();
}

/** The order the operator's language writes a date's numbers in. */
function dateOrder(clock: Clock): ('year' | 'month' | 'day')[] {
  return numeric(clock)
    .formatToParts(Date.UTC(2026, 0, 15))
    .map((p) => p.type)
    .filter((t): t is 'year' | 'month' | 'day' => t === 'year' || t === 'month' || t === 'day');
}

/** The zone's offset from UTC at an instant, in ms (London in July: +3,600,000). */
function offsetAt(instant: number, clock: Clock): number {
  const parts = Object.fromEntries(
    numeric({ locale: 'en-US', timeZone: clock.timeZone }, true)
      .formatToParts(instant)
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<Part, number>;
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a wall time (given as if it were UTC) names in the zone. The offset is read at the first
 * guess and again at the instant it gives, so a wall time past a summer-time change takes the new offset.
 */
function instantOf(wall: number, clock: Clock): number {
  const guess = wall - offsetAt(wall, clock);
  return wall - offsetAt(guess, clock);
}
