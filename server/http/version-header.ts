import { isKnownVersion, LATEST_VERSION } from '../versions/registry';
import type { Exchange } from './exchange';

/** The header a partner names a version in, and every partner answer names the version that rendered it in. */
export const VERSION_HEADER = 'x-service-version';

/** What renders an answer that came before the request's version was known (a 401, 403 or 429): the header's, when it names one, else the latest. */
export function fallbackVersionOf(exchange: Exchange): string {
  const header = exchange.header(VERSION_HEADER)?.trim();
  return header && isKnownVersion(header) ? header : LATEST_VERSION;
}
