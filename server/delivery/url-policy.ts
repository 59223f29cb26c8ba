import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { blockedHostname, blockedRange } from './address-policy';

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export type UrlProblem =
  | { code: 'url_invalid'; message: string }
  | { code: 'url_not_https'; message: string }
  | { code: 'url_unresolvable'; message: string }
  | { code: 'url_blocked_address'; message: string }
  | { code: 'url_port_not_allowed'; message: string };

export interface CheckedUrl {
  url: URL;
  /** The hostname without brackets or trailing dots, as resolved. */
  host: string;
  /** Addresses that passed the policy; deliveries connect to one of these and nothing else. */
  addresses: string[];
}

export const MAX_URL_LENGTH = 2048;

// Ports a webhook may use: 443, or 1024 and above but for the well-known ports of databases, caches and
// cluster control planes (what a delivery aimed at a public host's internals would knock on). Below
// 1024 only HTTPS's own: 22, 25 and the like are never an HTTPS receiver.
const REFUSED_HIGH_PORTS = new Set([2375, 2376, 2379, 2380, 3306, 5432, 5984, 6379, 6443, 9200, 9300, 10250, 11211, 27017]);

export function webhookPortAllowed(url: URL): boolean {
  const port = url.port === '' ? 443 : Number(url.port);
  return port === 443 || (port >= 1024 && !REFUSED_HIGH_PORTS.has(port));
}

/** Parses a webhook URL and checks it is https, carries no credentials, and has only a public host. */
export function parseWebhookUrl(text: string): { url: URL; host: string } | UrlProblem {
  if (text.length > MAX_URL_LENGTH) return { code: 'url_invalid', message: `url is at most ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { code: 'url_invalid', message: 'url is not a valid absolute URL.' };
  }
  if (url.protocol !== 'https:') return { code: 'url_not_https', message: 'url must use https://.' };
  if (url.username || url.password) return { code: 'url_invalid', message: 'url must not contain credentials (user:password@).' };
  // WHATWG parsing already turned decimal, octal and hex IPv4 forms into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (!host) return { code: 'url_invalid', message: 'url has no host.' };
  return { url, host };
}

const BLOCKED: UrlProblem = { code: 'url_blocked_address', message: 'url does not point at a publicly routable address.' };

/**
 * The full check, at creation and again before every delivery: the host (or every address it
 * resolves to) must be public, unless private networks are explicitly allowed (development and tests).
 */
export async function checkWebhookUrl(text: string, opts: { allowPrivate: boolean; resolve: Resolver }): Promise<CheckedUrl | UrlProblem> {
  const parsed = parseWebhookUrl(text);
  if ('code' in parsed) return parsed;
  const { url, host } = parsed;
  if (!opts.allowPrivate && !webhookPortAllowed(url)) {
    return { code: 'url_port_not_allowed', message: 'url must use port 443, or a port from 1024 up that is not a database or cache port.' };
  }
  // The messages never say what a name resolves to: a partner must not learn our internal DNS.
  if (!opts.allowPrivate && blockedHostname(host)) return BLOCKED;
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await opts.resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { code: 'url_unresolvable', message: `url host ${host} does not resolve.` };
  }
  if (opts.allowPrivate) return { url, host, addresses };
  // One blocked address is enough to refuse: a name that resolves both ways is a rebinding trick.
  for (const address of addresses) if (blockedRange(address)) return BLOCKED;
  return { url, host, addresses };
}
