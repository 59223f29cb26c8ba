'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { hhmm, type Minute } from './minutes';

const GOOD = '#1a7f37';
const BAD = '#b3261e';

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
