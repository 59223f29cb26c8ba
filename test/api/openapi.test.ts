import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRouteTable, routeFiles, routePath } from '@/server/boot/route-table';
import { startTestService, type TestService } from '../support/service';
import path from 'node:path';

let svc: TestService;
let doc: { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>> };

beforeAll(async () => {
  svc = await startTestService();
  const res = await fetch(`${svc.url}/partner/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  doc = await res.json();
});

describe('GET /partner/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('documents exactly the routes of the route table, every method of each', async () => {
    const table = await loadRouteTable();
    const fromTable = table
      .flatMap((r) => [r.path, ...(r.alias ? [r.alias] : [])].flatMap((p) => Object.keys(r.handlers).map((m) => `${m.toLowerCase()} ${p}`)))
      .sort();
    const fromDoc = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`))
      .sort();
    expect(fromDoc).toEqual(fromTable);
  });

  it('lists the auth headers and every error status of authenticated routes', () => {
    const createQuote = doc.paths['/partner/quotes']!.post!;
    expect(createQuote.security).toEqual([{ ApiKey: [], ClientId: [] }]);
    for (const status of ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']) {
      expect(Object.keys(createQuote.responses)).toContain(status);
    }
    expect(Object.keys(doc.paths['/partner/quotes/{id}']!.get!.responses)).toContain('404');
  });
});

describe('route table', () => {
  it('is derived from every app/partner/**/route.ts, so no route file bypasses the front door', async () => {
    const files = routeFiles(path.resolve('app/partner'));
    const table = await loadRouteTable();
    expect(table.map((r) => r.path).sort()).toEqual(files.map(routePath).sort());
    expect(routePath(path.resolve('app/partner/quotes/[id]/route.ts'))).toBe('/partner/quotes/{id}');
  });
});
