import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { byMatchOrder, routeEntry, type RouteEntry } from '@/server/http/routes';
import { isOperatorHandler, type OperatorHandler } from '@/server/http/operator-route';
import { HTTP_METHODS, isSpecifiedHandler, type SpecifiedHandler } from '@/server/http/route-spec';

const APP_DIR = path.resolve(process.cwd(), 'app');
const PARTNER_DIR = path.join(APP_DIR, 'partner');
const OPERATOR_API_DIR = path.join(APP_DIR, 'api');

/**
 * The partner route table, derived from the files Next also serves (app/partner/**\/route.ts), so a
 * new route file can never bypass the front door's direct dispatch. Loaded once per process.
 */
let table: Promise<RouteEntry[]> | undefined;
export function loadRouteTable(): Promise<RouteEntry[]> {
  table ??= buildRouteTable(PARTNER_DIR, isSpecifiedHandler, 'partnerRoute() or publicRoute()');
  return table;
}

/** The operator API's routes (app/api/**\/route.ts: GraphQL, sign-in), dispatched the same way. */
let operatorTable: Promise<RouteEntry<OperatorHandler>[]> | undefined;
export function loadOperatorRouteTable(): Promise<RouteEntry<OperatorHandler>[]> {
  operatorTable ??= buildRouteTable(OPERATOR_API_DIR, isOperatorHandler, 'operatorRoute()');
  return operatorTable;
}

async function buildRouteTable<H extends SpecifiedHandler | OperatorHandler>(
  dir: string,
  isHandler: (value: unknown) => value is H,
  maker: string,
): Promise<RouteEntry<H>[]> {
  const entries = await Promise.all(
    routeFiles(dir).map(async (file) => {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const handlers: RouteEntry<H>['handlers'] = {};
      for (const method of HTTP_METHODS) {
        const exported = mod[method];
        if (exported === undefined) continue;
        if (!isHandler(exported)) throw new Error(`${file}: ${method} must be made with ${maker}`);
        handlers[method] = exported;
      }
      return routeEntry(routePath(file), file, handlers);
    }),
  );
  return entries.sort(byMatchOrder);
}

export function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return routeFiles(full);
    return d.name === 'route.ts' ? [full] : [];
  });
}

/** app/partner/quotes/[id]/route.ts → /partner/quotes/{id}; route groups "(x)" vanish as in Next. */
export function routePath(file: string): string {
  const segments = path
    .relative(APP_DIR, path.dirname(file))
    .split(path.sep)
    .filter((s) => !(s.startsWith('(') && s.endsWith(')')))
    .map((s) => (s.startsWith('[') && s.endsWith(']') ? `{${s.slice(1, -1)}}` : s));
  return '/' + segments.join('/');
}
