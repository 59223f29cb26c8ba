import { inAnyCidr, parseAddress, type Address, type Cidr } from './cidr';

/** Header the front door sets from the socket; any client-sent copy is stripped before it. */
export const CLIENT_ADDRESS_HEADER = 'x-pdp-client-address';

/**
 * The client's address: the socket peer, unless that peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy. Entries left of an
 * untrusted hop are ignored: anyone can write them.
 */
export function resolveClientAddress(
  socketAddress: string | null,
  forwardedFor: string | null,
  trusted: readonly Cidr[],
): Address | undefined {
  const peer = socketAddress ? parseAddress(socketAddress) : undefined;
  if (!peer || trusted.length === 0 || !inAnyCidr(peer, trusted) || !forwardedFor) return peer;
  const hops = forwardedFor
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  let client: Address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(withoutPort(hops[i] ?? ''));
    if (!hop) return client; // a malformed entry: stop at the last address we could trust
    client = hop;
    if (!inAnyCidr(hop, trusted)) return hop;
  }
  return client;
}

/** Some proxies append the client's port: 203.0.113.9:443 and [2001:db8::1]:443 name the same hosts. */
function withoutPort(hop: string): string {
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  if (v4) return v4[1]!;
  const v6 = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  return v6 ? v6[1]! : hop;
}
