import type { Resolver } from './url-policy';

/**
 * A resolver that remembers each name's answer for `ttlMs`, and asks once for concurrent lookups of
 * one name. Every attempt still checks the URL against the address policy, and every new connection
 * still connects only to an address that passed it: only the question to the system's resolver is
 * saved. A name that starts resolving to a private address is refused at the first attempt after its
 * answer expires. Failed lookups are not remembered.
 *
 * Why: with keep-alive, a getaddrinfo per attempt (through libuv's four threads) was the largest cost
 * of an attempt after TLS (`npm run bench -- delivery --profile`).
 */
export function cachingResolver(resolve: Resolver, { ttlMs, maxNames }: { ttlMs: number; maxNames: number }): Resolver {
  const answers = new Map<string, { addresses: Promise<string[]>; until: number }>();
  return (hostname) => {
    const now = performance.now();
    const cached = answers.get(hostname);
    if (cached && cached.until > now) return cached.addresses;
    // Oldest first: a Map iterates in insertion order, and an answer is re-inserted when refreshed.
    if (cached) answers.delete(hostname);
    while (answers.size >= maxNames) answers.delete(answers.keys().next().value!);
    const addresses = resolve(hostname);
    answers.set(hostname, { addresses, until: now + ttlMs });
    addresses.catch(() => {
      if (answers.get(hostname)?.addresses === addresses) answers.delete(hostname);
    });
    return addresses;
  };
}
