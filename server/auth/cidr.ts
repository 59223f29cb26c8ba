import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

/** Parses an address, folding IPv4-mapped IPv6 (::ffff:a.b.c.d, what a dual-stack socket reports) into IPv4. */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // Zone ids (fe80::1%eth0) are local to this host and never part of an allowlist.
  const noZone = bare.split('%')[0] ?? '';
  if (!isCanonical(noZone)) return undefined;
  return ipaddr.process(noZone);
}

/**
 * Parses and normalises a CIDR ("203.0.113.7/24" → 203.0.113.0/24; a bare address → /32 or /128;
 * ::ffff:10.0.0.0/104 → 10.0.0.0/8). Returns undefined for anything else.
 */
export function parseCidr(text: string): Cidr | undefined {
  const trimmed = text.trim();
  const [addrPart, prefixPart, ...rest] = trimmed.split('/');
  if (rest.length > 0 || !addrPart) return undefined;
  if (prefixPart !== undefined && !/^\d{1,3}$/.test(prefixPart)) return undefined;
  const raw = addrPart.split('%')[0] ?? '';
  if (!isCanonical(raw)) return undefined;
  let addr: Address = ipaddr.parse(raw);
  let prefix = prefixPart === undefined ? (addr.kind() === 'ipv4' ? 32 : 128) : Number(prefixPart);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  if (prefix > max) return undefined;
  const network = ipaddr.parse(networkAddress(addr, prefix));
  return [network, prefix];
}

/**
 * ipaddr.js also accepts legacy IPv4 forms ("127.1", "0x7f.1", "010.0.0.1"), inside IPv6 too
 * ("::ffff:0x7f.0.0.1"); allowlists and forwarded addresses take the four-part decimal form only,
 * so one address has one spelling.
 */
function isCanonical(text: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return true;
  if (!ipaddr.IPv6.isValid(text)) return false;
  const embedded = text.includes('.') ? text.slice(text.lastIndexOf(':') + 1) : undefined;
  return embedded === undefined || ipaddr.IPv4.isValidFourPartDecimal(embedded);
}

export function formatCidr([addr, prefix]: Cidr): string {
  return `${addr.toString()}/${prefix}`;
}

export function normaliseCidr(text: string): string | undefined {
  const parsed = parseCidr(text);
  return parsed ? formatCidr(parsed) : undefined;
}

export function inAnyCidr(addr: Address, cidrs: readonly Cidr[]): boolean {
  for (const range of cidrs) {
    if (range[0].kind() === addr.kind() && addr.match(range)) return true;
  }
  return false;
}

function networkAddress(addr: Address, prefix: number): string {
  const bytes = addr.toByteArray();
  for (let bit = prefix; bit < bytes.length * 8; bit++) {
    const i = bit >> 3;
    bytes[i] = (bytes[i] ?? 0) & ~(0x80 >> (bit & 7));
  }
  return ipaddr.fromByteArray(bytes).toString();
}

/**
 * The client a per-client limit counts: an IPv4 address, or an IPv6 client's /64. One host is handed a
 * whole /64 (SLAAC, and most providers' smallest delegation), so counting IPv6 addresses one by one gave
 * a single client 2^64 budgets. Anything unparseable is counted as itself.
 */
export function clientBucket(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  return parsed.kind() === 'ipv4' ? parsed.toString() : (normaliseCidr(`${parsed.toString()}/64`) ?? address);
}
