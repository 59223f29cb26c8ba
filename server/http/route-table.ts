import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HTTP_METHODS, isSpecifiedHandler, type HttpMethod, type SpecifiedHandler } from './route-spec';

export interface RouteEntry {
  /** OpenAPI-style path, e.g. /partner/quotes/{id} */
  path: string;
  /** The same route under the spec's un-prefixed spelling (/webhooks/{id}/test), if it has one. */
  alias?: string;
  file: string;
  handlers: Partial<Record<HttpMethod, SpecifiedHandler>>;
  match(pathname: string): Record<string, string> | undefined;
}

const APP_DIR = path.resolve(process.cwd(), 'app');
// The spec prints the webhook paths without /partner; DESIGN makes /partner/webhooks canonical and
// /webhooks an alias served by the same handlers.
const ALIASES: [canonical: string, alias: string][] = [['/partner/webhooks', '/webhooks']];
const PARTNER_DIR = path.join(APP_DIR, 'partner');

/**
 * The partner route table, derived from the files Next also serves (app/partner/**\/route.ts), so a
 * new route file can never bypass the front door's direct dispatch. Loaded once per process.
 */
let table: Promise<RouteEntry[]> | undefined;
export function loadRouteTable(): Promise<RouteEntry[]> {
  table ??= buildRouteTable();
  return table;
}

async function buildRouteTable(): Promise<RouteEntry[]> {
  const entries = await Promise.all(
    routeFiles(PARTNER_DIR).map(async (file) => {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const handlers: RouteEntry['handlers'] = {};
      for (const method of HTTP_METHODS) {
        const exported = mod[method];
        if (exported === undefined) continue;
        if (!isSpecifiedHandler(exported)) throw new Error(`${file}: ${method} must be made with partnerRoute() or publicRoute()`);
        handlers[method] = exported;
      }
      return entry(file, handlers);
    }),
  );
  // Static segments win over dynamic ones (/partner/events/types before /partner/events/{id}).
  return entries.sort((a, b) => dynamicCount(a.path) - dynamicCount(b.path) || a.path.localeCompare(b.path));
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

function entry(file: string, handlers: RouteEntry['handlers']): RouteEntry {
  const canonical = routePath(file);
  const aliasRule = ALIASES.find(([prefix]) => canonical === prefix || canonical.startsWith(prefix + '/'));
  const alias = aliasRule ? aliasRule[1] + canonical.slice(aliasRule[0].length) : undefined;
  const matchers = [compile(canonical), ...(alias ? [compile(alias)] : [])];
  return {
    path: canonical,
    alias,
    file,
    handlers,
    match(pathname) {
      for (const m of matchers) {
        const params = m(pathname);
        if (params) return params;
      }
      return undefined;
    },
  };
}

function compile(routePathText: string): (pathname: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = routePathText
    .split('/')
    .map((s) => {
      if (s.startsWith('{')) {
        names.push(s.slice(1, -1));
        return '([^/]+)';
      }
      return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  const regex = new RegExp(`^${source}/?$`);
  return (pathname) => {
    const m = regex.exec(pathname);
    if (!m) return undefined;
    const params: Record<string, string> = {};
    names.forEach((name, i) => {
      params[name] = safeDecode(m[i + 1] ?? '');
    });
    return params;
  };
}

/** Paths the front door must dispatch itself rather than hand to Next. */
export function isPartnerPath(pathname: string): boolean {
  return pathname === '/partner' || pathname.startsWith('/partner/') || ALIASES.some(([, alias]) => pathname === alias || pathname.startsWith(alias + '/'));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function dynamicCount(p: string): number {
  return (p.match(/\{/g) ?? []).length;
}
