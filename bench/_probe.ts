import autocannon from 'autocannon';
import { openBenchDatabase } from './database';
import { createBenchPartner } from './partner';
import { startChild } from './processes';
import { randomBytes } from 'node:crypto';

const mode = process.argv[2] ?? 'lean';
const db = await openBenchDatabase();
const partner = await createBenchPartner(db.url, 'probe');
const env: Record<string, string> = { DATABASE_URL: db.url, SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), SEED_DEMO: 'false' };
if (mode === 'lean') Object.assign(env, { WORKERS: 'off', CONSOLE: 'off', NODE_ENV: 'production' });
if (mode === 'workers') Object.assign(env, { CONSOLE: 'off', NODE_ENV: 'production' });
const prof = process.argv[3] === 'prof';
if (mode === 'baseline') { const warm = await startChild('w', 'server/boot/web.ts', { ...env, WORKERS: 'off', CONSOLE: 'off' }); await warm.stop(); }
const dir = '/tmp/ob/prof-' + mode; (await import('node:fs')).mkdirSync(dir, { recursive: true });
const child = await startChild(mode, mode === 'baseline' ? 'bench/baseline-server.ts' : 'server/boot/web.ts', mode === 'baseline' ? { DATABASE_URL: db.url, BENCH_PARTNER_ID: partner.partnerId, BENCH_ENVIRONMENT: 'sandbox' } : env, prof ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=250'] } : {});
let window: any = {};
const headers = { 'content-type': 'application/json', 'x-client-id': partner.clientId, 'x-api-key': partner.apiKey };
const QUOTE = JSON.stringify({ pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } });
for (const dur of [3, 10]) {
  const inst = autocannon({
    url: child.url, connections: 50, duration: dur, pipelining: 1, timeout: 10,
    requests: [
      { method: 'POST', path: '/partner/quotes', headers, body: QUOTE, onResponse: (s: number, b: string, c: any) => { c.q = JSON.parse(b).id; } },
      { method: 'POST', path: '/partner/orders', headers, setupRequest: (req: any, c: any) => ({ ...req, body: JSON.stringify({ quote_id: c.q }) }) },
    ],
  } as any);
  const t0 = Number(process.hrtime.bigint() / 1000n);
  const r: any = await inst;
  window = { fromUs: t0, toUs: Number(process.hrtime.bigint() / 1000n), n: r.statusCodeStats['201']?.count ?? 0 };
  console.log(mode, dur, 's:', JSON.stringify(r.statusCodeStats), 'pairs/s', ((r.statusCodeStats['201']?.count ?? 0) / 2 / r.duration).toFixed(0), 'p50', r.latency.p50, 'p99', r.latency.p99);
}
console.log(child.stderr().slice(0,1500));
await child.stop();
if (prof) {
  const { analyseProfile, formatBreakdown, largestProfile, readProfile } = await import('./profile');
  const b = analyseProfile(readProfile(largestProfile(dir)!), { fromUs: window.fromUs, toUs: window.toUs }, window.n, process.cwd());
  console.log(formatBreakdown(mode, b, 45));
}
await db.stop();
process.exit(0);
