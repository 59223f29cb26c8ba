import { formatPoint } from '../ui/format';

export interface Minute {
  minute: string;
  succeeded: number;
  failed: number;
}

/** A minute's start as the chart's axis shows it: the browser's time zone and language. */
export const hhmm = (iso: string) => formatPoint(iso);

/**
 * Every minute of the window (the API lists only minutes with attempts), oldest first, so a quiet
 * minute reads as a gap rather than vanishing from the axis.
 */
export function everyMinute(perMinute: Minute[], since: string, now: Date): Minute[] {
  const counted = new Map(perMinute.map((m) => [new Date(m.minute).getTime(), m]));
  const first = Math.floor(new Date(since).getTime() / 60_000) * 60_000;
  const minutes: Minute[] = [];
  for (let t = first; t <= now.getTime(); t += 60_000) {
    const m = counted.get(t);
    minutes.push({ minute: new Date(t).toISOString(), succeeded: m?.succeeded ?? 0, failed: m?.failed ?? 0 });
  }
  return minutes;
}
