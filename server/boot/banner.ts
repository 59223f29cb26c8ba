import type { Env } from '@/server/config/env';
import type { RunningProcess } from './start-process';

/** What a newcomer needs after `npm start`: where it runs, who to be, and a first request that works when pasted. */
export function printBanner(service: RunningProcess, env: Env, startMs: number): void {
  // PUBLIC_BASE_URL may end in '/': the printed links and the curl line must not hold '//partner'.
  const url = (service.url ?? '').replace(/\/+$/, '');
  const lines = [
    '',
    `Partner Delivery Platform ready in ${(startMs / 1000).toFixed(1)} s at ${url}`,
    `  database: ${env.DATABASE_URL ? 'DATABASE_URL' : `embedded Postgres under ${env.DATA_DIR}/`}; workers: ${env.WORKERS}; console: ${env.CONSOLE}`,
    `  API reference and guides: ${url}/docs   OpenAPI: ${url}/partner/openapi.json   health: ${url}/healthz   readiness: ${url}/readyz`,
  ];
  const demo = service.demo;
  if (demo) {
    lines.push(
      '',
      `Demo sandbox partner "${demo.partner.name}" (${demo.partner.id}):`,
      `  X-Client-ID: ${demo.sandbox.client_id}`,
      `  X-API-Key:   ${demo.sandbox.api_key}`,
      `Demo operator: ${demo.operator.email} / ${demo.operator.password}`,
      `  sign in at ${url}/login (console), or POST ${url}/api/session for the GraphQL API at ${url}/api/graphql`,
      '',
      'First quote:',
      `  curl -sS -X POST ${url}/partner/quotes \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -H 'X-Client-ID: ${demo.sandbox.client_id}' \\`,
      `    -H 'X-API-Key: ${demo.sandbox.api_key}' \\`,
      `    -d '{"pickup":{"lat":40.7484,"lng":-73.9857},"dropoff":{"lat":40.7580,"lng":-73.9855}}'`,
      '',
      'Webhooks to this machine: run `npm run receiver` in another terminal and follow what it prints.',
    );
  }
  console.log(lines.join('\n') + '\n');
}
