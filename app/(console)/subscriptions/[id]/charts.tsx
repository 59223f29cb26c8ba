'use client';

import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatPoint, formatSpan } from '../../../_console/ui/format';

interface Bucket {
  start: string;
  attempts: number;
  succeeded: number;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
}

/**
 * Success rate (with the attempts behind it) and latency per interval, as charts for the eye and as a
 * table for screen readers and keyboards (the charts' points are not focusable one by one).
 */
export function HealthCharts({ buckets, bucketMinutes }: { buckets: Bucket[]; bucketMinutes: number }) {
  const points = buckets.map((b) => ({
    ...b,
    label: formatPoint(b.start, { withDate: bucketMinutes >= 60 }),
    successPercent: b.attempts === 0 ? null : Math.round((b.succeeded / b.attempts) * 1000) / 10,
  }));
  if (points.length === 0) {
    return (
      <>
        <h2>Over time</h2>
        <p className="muted">No attempts in the window.</p>
      </>
    );
  }
  return (
    <>
      <h2>Over time</h2>
      <p className="muted">Each point covers {formatSpan(bucketMinutes)}; intervals without attempts are left out.</p>
      <div className="charts">
        <figure>
          <figcaption>Success rate (%) and attempts per interval</figcaption>
          <ResponsiveContainer width="100%" height={260}>
            <ComposedChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="label" />
              <YAxis yAxisId="rate" domain={[0, 100]} unit="%" />
              <YAxis yAxisId="attempts" orientation="right" allowDecimals={false} />
              <Tooltip />
              <Legend />
              <Bar yAxisId="attempts" dataKey="attempts" name="Attempts" fill="#c8d7f5" />
              <Line yAxisId="rate" dataKey="successPercent" name="Success %" stroke="#1a7f37" strokeWidth={2} dot={points.length < 20} />
            </ComposedChart>
          </ResponsiveContainer>
        </figure>
        <figure>
          <figcaption>Attempt duration per interval (ms): median and 95th percentile</figcaption>
          <ResponsiveContainer width="100%" height={260}>
            <LineChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="label" />
              <YAxis unit=" ms" />
              <Tooltip />
              <Legend />
              <Line dataKey="p50DurationMs" name="p50" stroke="#0b5fff" strokeWidth={2} dot={points.length < 20} />
              <Line dataKey="p95DurationMs" name="p95" stroke="#9a6700" strokeWidth={2} dot={points.length < 20} />
            </LineChart>
          </ResponsiveContainer>
        </figure>
      </div>
      <details>
        <summary>The numbers behind the charts</summary>
        <table>
          <caption>Attempts per interval</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Attempts</th>
              <th scope="col">Succeeded</th>
              <th scope="col">Success</th>
              <th scope="col">p50 ms</th>
              <th scope="col">p95 ms</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.start}>
                <td>{formatPoint(p.start, { withDate: true })}</td>
                <td>{p.attempts}</td>
                <td>{p.succeeded}</td>
                <td>{p.successPercent === null ? '—' : `${p.successPercent} %`}</td>
                <td>{p.p50DurationMs ?? '—'}</td>
                <td>{p.p95DurationMs ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}
