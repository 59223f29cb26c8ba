import { describe, expect, it } from 'vitest';
import { loadOperatorRouteTable, loadRouteTable } from '@/server/boot/route-table';
import { routeFinder, type RouteEntry } from '@/server/http/routes';

// routeFinder finds static paths in a Map and tries only the dynamic routes in order: for every pathname it must name the
// route (and params) the table's own order names, trying each route's match() in turn.

function firstMatch<H>(table: RouteEntry<H>[], pathname: string) {
  for (const route of table) {
    const params = route.match(pathname);
    if (params) return { route, params };
  }
  return undefined;
}

function pathnamesOf(table: RouteEntry<unknown>[]): string[] {
  const filled = (p: string) => p.replace(/\{[^}]+\}/g, (_, i: number) => `seg${i}`);
  const spellings = table.flatMap((r) => [r.path, ...(r.alias ? [r.alias] : [])]);
  return spellings.flatMap((p) => {
    const path = filled(p);
    return [path, `${path}/`, `${path}//`, `${path}/extra`, path.toUpperCase(), path.slice(0, -1), `${path}%2F`, `${path}.json`];
  });
}

describe('routeFinder', () => {
  it.each([
    ['partner', loadRouteTable],
    ['operator', loadOperatorRouteTable],
  ] as const)('names the route the %s table names in order, for its paths and near misses', async (_, load) => {
    const table = (await load()) as RouteEntry<unknown>[];
    const find = routeFinder(table);
    const pathnames = [
      ...pathnamesOf(table),
      '/',
      '/partner',
      '/partner/',
      '/webhooks',
      '/partner/orders/a%20b',
      '/partner/orders/%E0%A4%A',
    ];
    expect(pathnames.length).toBeGreaterThan(table.length * 8);
    for (const pathname of pathnames) {
      const expected = firstMatch(table, pathname);
      const found = find(pathname);
      expect({ pathname, route: found?.route.path, params: found?.params }).toEqual({
        pathname,
        route: expected?.route.path,
        params: expected?.params,
      });
    }
  });
});
