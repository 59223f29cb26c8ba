import type { HttpMethod, SpecifiedHandler } from './route-spec';

export interface RouteEntry<H = SpecifiedHandler> {
  /** OpenAPI-style path, e.g. /partner/quotes/{id} */
  path: string;
  /** The same route under the spec's un-prefixed spelling (/webhooks/{id}/test), if it has one. */
  alias?: string;
  file: string;
  handlers: Partial<Record<HttpMethod, H>>;
  match(pathname: string): Record<string, string> | undefined;
}

// The spec prints the webhook paths without /partner; DESIGN makes /partner/webhooks canonical and
// /webhooks an alias served by the same handlers.
const ALIASES: [canonical: string, alias: string][] = [['/partner/webhooks', '/webhooks']];

/** A route at `path` (/partner/quotes/{id}) with its handlers, matching its alias too. */
export function routeEntry<H>(path: string, file: string, handlers: RouteEntry<H>['handlers']): RouteEntry<H> {
  const aliasRule = ALIASES.find(([prefix]) => path === prefix || path.startsWith(prefix + '/'));
  const alias = aliasRule ? aliasRule[1] + path.slice(aliasRule[0].length) : undefined;
  const matchers = [compile(path), ...(alias ? [compile(alias)] : [])];
  return {
    path,
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

/**
 * The route a pathname names in a table sorted by byMatchOrder, and its params. Paths without a parameter are found in a
 * Map (each spelling, with and without its trailing slash), then the rest tried in order: an order read no longer runs
 * the regular expression of every static route before its own.
 */
export function routeFinder<H>(
  table: RouteEntry<H>[],
): (pathname: string) => { route: RouteEntry<H>; params: Record<string, string> } | undefined {
  const fixed = new Map<string, RouteEntry<H>>();
  const dynamic: RouteEntry<H>[] = [];
  for (const route of table) {
    const spellings = [route.path, ...(route.alias ? [route.alias] : [])];
    if (spellings.some((p) => p.includes('{'))) {
      dynamic.push(route);
      continue;
    }
    for (const p of spellings) for (const key of [p, `${p}/`]) if (!fixed.has(key)) fixed.set(key, route);
  }
  return (pathname) => {
    const route = fixed.get(pathname);
    if (route) return { route, params: {} };
    for (const candidate of dynamic) {
      const params = candidate.match(pathname);
      if (params) return { route: candidate, params };
    }
    return undefined;
  };
}

/** Static segments win over dynamic ones (/partner/events/types before /partner/events/{id}). */
export function byMatchOrder(a: RouteEntry<unknown>, b: RouteEntry<unknown>): number {
  return dynamicCount(a.path) - dynamicCount(b.path) || a.path.localeCompare(b.path);
}

/** The operator API (GraphQL, sign-in, exports): dispatched by the front door, like partner routes. */
export function isOperatorApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/');
}

/** Partner paths the front door must dispatch itself rather than hand to Next. */
export function isPartnerPath(pathname: string): boolean {
  return (
    pathname === '/partner' ||
    pathname.startsWith('/partner/') ||
    ALIASES.some(([, alias]) => pathname === alias || pathname.startsWith(alias + '/'))
  );
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
