import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type BlockReason = string;

/**
 * Whether a webhook may be sent to this IP. Only global unicast is allowed: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), CGNAT, multicast, broadcast, reserved,
 * unspecified, IPv6 ULA and site-local are refused, and so is any IPv6 address outside 2000::/3
 * (the only block IANA allocates for global unicast). IPv6 forms that wrap an IPv4 address
 * (::ffff:a.b.c.d, ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4
 * inside them; the deprecated IPv4-compatible ::a.b.c.d and the local-use NAT64 prefix
 * 64:ff9b:1::/48 are refused outright. Returns undefined when allowed, else the range's name.
 */
export function blockedRange(ip: string): BlockReason | undefined {
  const addr = parseIp(ip);
  if (!addr) return 'invalid';
  if (addr.kind() === 'ipv4') {
    const range = (addr as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : range;
  }
  const v6 = addr as ipaddr.IPv6;
  const p = v6.parts;
  const range = v6.range();
  if (range === 'rfc6052' && p[2] !== 0) return 'nat64LocalUse';
  const inner = embeddedIPv4(v6, range);
  if (inner) {
    const innerRange = inner.range();
    return innerRange === 'unicast' ? undefined : `${range}:${innerRange}`;
  }
  if (range !== 'unicast') return range;
  if (p.slice(0, 6).every((w) => w === 0)) return 'ipv4Compatible';
  if ((p[0]! & 0xe000) !== 0x2000) return 'reserved';
  return undefined;
}

/**
 * Strict parsing: only what the OS would connect to as a literal (no `0x7f.1`-style IPv4). IPv6 goes
 * through WHATWG's parser first, because ipaddr.js reads the IPv4-compatible `::a.b.c.d` as the mapped
 * `::ffff:a.b.c.d`, so `::8.8.8.8` and `::a00:1` (the same address as `::10.0.0.1`) would disagree.
 */
function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const family = isIP(ip);
  try {
    if (family === 4) return ipaddr.IPv4.parse(ip);
    if (family === 6) return ipaddr.IPv6.parse(new URL(`http://[${ip.replace(/%.*$/, '')}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
  return undefined;
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
