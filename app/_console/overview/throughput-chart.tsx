'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export interface Minute {
  minute: string;
  succeeded: number;
  failed: number;
}

const GOOD = '#1a7f37';
const BAD = '#b3261e';
const hhmm = (iso: string) => new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });

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

/**
 * Attempts per minute by outcome as stacked bars (recharts). The SVG is one image for assistive
 * technology, described by its summary; the minutes themselves are in the table that follows it.
 */
export function ThroughputChart({ minutes, summary }: { minutes: Minute[]; summary: string }) {
  return (
    <div role="img" aria-label={summary} style={{ width: '100%', height: 260 }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={minutes} accessibilityLayer={false} barCategoryGap={0} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="minute" tickFormatter={hhmm} minTickGap={40} />
          <YAxis allowDecimals={false} width={40} />
          <Tooltip labelFormatter={(label) => hhmm(String(label))} isAnimationActive={false} />
          <Legend />
          <Bar dataKey="succeeded" name="Succeeded" stackId="outcome" fill={GOOD} isAnimationActive={false} />
          <Bar dataKey="failed" name="Failed" stackId="outcome" fill={BAD} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export { hhmm };
