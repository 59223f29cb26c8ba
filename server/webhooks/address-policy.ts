import ipaddr from 'ipaddr.js';

export type BlockReason = string;

/**
 * Whether a webhook may be sent to this IP. Only global unicast is allowed: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), CGNAT, multicast, broadcast, reserved,
 * unspecified, IPv6 ULA and site-local are refused. IPv6 forms that wrap an IPv4 address
 * (::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 inside them.
 * Returns undefined when allowed, else the range's name.
 */
export function blockedRange(ip: string): BlockReason | undefined {
  if (!ipaddr.isValid(ip)) return 'invalid';
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv4') {
    const range = (addr as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : range;
  }
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'unicast') return undefined;
  const inner = embeddedIPv4(v6, range);
  if (inner) {
    const innerRange = inner.range();
    return innerRange === 'unicast' ? undefined : `${range}:${innerRange}`;
  }
  return range;
}

function embeddedIPv4(v6: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return fromWords(p[6]!, p[7]!);
  if (range === '6to4') return fromWords(p[1]!, p[2]!);
  return undefined;
}

/** Names that always mean this machine, whatever a resolver says. */
export function blockedHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.+$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain';
}
