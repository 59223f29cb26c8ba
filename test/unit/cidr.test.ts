import { describe, expect, it } from 'vitest';
import { inAnyCidr, normaliseCidr, parseAddress, parseCidr, type Cidr } from '@/server/auth/cidr';

const cidrs = (...texts: string[]): Cidr[] =>
  texts.map((t) => {
    const c = parseCidr(t);
    if (!c) throw new Error(`test setup: ${t} is not a CIDR`);
    return c;
  });

const addr = (text: string) => {
  const a = parseAddress(text);
  if (!a) throw new Error(`test setup: ${text} is not an address`);
  return a;
};

describe('parseAddress', () => {
  it.each([
    ['127.0.0.1', 'ipv4', '127.0.0.1'],
    ['0.0.0.0', 'ipv4', '0.0.0.0'],
    ['255.255.255.255', 'ipv4', '255.255.255.255'],
    ['::1', 'ipv6', '::1'],
    ['[::1]', 'ipv6', '::1'],
    ['2001:DB8::7', 'ipv6', '2001:db8::7'],
    ['2001:db8:0:0:0:0:0:7', 'ipv6', '2001:db8::7'],
    // What a dual-stack socket reports for an IPv4 client: folded into IPv4.
    ['::ffff:127.0.0.1', 'ipv4', '127.0.0.1'],
    ['::ffff:7f00:1', 'ipv4', '127.0.0.1'],
    ['[::ffff:203.0.113.9]', 'ipv4', '203.0.113.9'],
    // Zone ids are local to a host: dropped.
    ['fe80::1%eth0', 'ipv6', 'fe80::1'],
  ])('%s → %s %s', (text, kind, canonical) => {
    const a = parseAddress(text);
    expect(a?.kind()).toBe(kind);
    expect(a?.toString()).toBe(canonical);
  });

  it.each([
    '',
    'abc',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '0x7f.1',
    '0x7f.0.0.1',
    '127.1',
    '2130706433',
    // Leading zeros are octal to some parsers and decimal to others: ambiguous, refused.
    '010.0.0.1',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.4/32',
    '1.2.3.4:80',
    '::1::',
    '2001:db8::g',
    ':::',
    // Legacy IPv4 forms stay refused when embedded in IPv6.
    '::ffff:0x7f.0.0.1',
    '::ffff:127.1',
    '::ffff:010.0.0.1',
  ])('refuses %j', (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });
});

describe('parseCidr / normaliseCidr', () => {
  it.each([
    ['203.0.113.7/24', '203.0.113.0/24'],
    ['203.0.113.7', '203.0.113.7/32'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['10.0.0.0/08', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.255/32', '192.168.1.255/32'],
    ['192.168.1.255/31', '192.168.1.254/31'],
    [' 10.1.2.3/8 ', '10.0.0.0/8'],
    ['2001:db8::1/32', '2001:db8::/32'],
    ['2001:DB8:0:0:0:0:0:1/128', '2001:db8::1/128'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['::1/128', '::1/128'],
    ['::/0', '::/0'],
    ['fe80::1:2:3:4/64', 'fe80::/64'],
    // IPv4-mapped ranges become the IPv4 range they cover, so they match IPv4 clients.
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
    ['::ffff:127.0.0.1/128', '127.0.0.1/32'],
    ['::ffff:127.0.0.1', '127.0.0.1/32'],
    ['::ffff:0:0/96', '0.0.0.0/0'],
    ['::ffff:203.0.113.77/120', '203.0.113.0/24'],
  ])('%s → %s', (text, normalised) => {
    expect(normaliseCidr(text)).toBe(normalised);
  });

  it.each([
    '',
    '/',
    '/8',
    'abc',
    'abc/8',
    '1.2.3',
    '1.2.3/24',
    '0x7f.1',
    '0x7f.0.0.1/8',
    '127.1/32',
    '010.0.0.0/8',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/+8',
    '10.0.0.0/',
    '10.0.0.0/ 8',
    '10.0.0.0/8/8',
    '10.0.0.0/1e1',
    '10.0.0.0/8.0',
    '10.0.0.0/1000',
    '2001:db8::/129',
    '::ffff:0x7f.0.0.1/128',
    '::ffff:127.1/128',
    '1.2.3.4,5.6.7.8',
  ])('refuses %j', (text) => {
    expect(parseCidr(text)).toBeUndefined();
    expect(normaliseCidr(text)).toBeUndefined();
  });

  it('normalising is idempotent', () => {
    for (const text of ['203.0.113.7/24', '2001:db8::1/32', '::ffff:10.0.0.0/104', '127.0.0.1']) {
      const once = normaliseCidr(text)!;
      expect(normaliseCidr(once)).toBe(once);
    }
  });
});

describe('inAnyCidr', () => {
  it('matches the edges of an IPv4 range and nothing past them', () => {
    const list = cidrs('127.0.0.0/31');
    expect(inAnyCidr(addr('127.0.0.0'), list)).toBe(true);
    expect(inAnyCidr(addr('127.0.0.1'), list)).toBe(true);
    expect(inAnyCidr(addr('127.0.0.2'), list)).toBe(false);
    expect(inAnyCidr(addr('126.255.255.255'), list)).toBe(false);
  });

  it('a /32 is exactly one address', () => {
    const list = cidrs('203.0.113.9/32');
    expect(inAnyCidr(addr('203.0.113.9'), list)).toBe(true);
    expect(inAnyCidr(addr('203.0.113.8'), list)).toBe(false);
    expect(inAnyCidr(addr('203.0.113.10'), list)).toBe(false);
  });

  it('matches IPv6 ranges', () => {
    const list = cidrs('2001:db8::/32', '::1/128');
    expect(inAnyCidr(addr('2001:db8:ffff::1'), list)).toBe(true);
    expect(inAnyCidr(addr('2001:db9::1'), list)).toBe(false);
    expect(inAnyCidr(addr('::1'), list)).toBe(true);
    expect(inAnyCidr(addr('::2'), list)).toBe(false);
  });

  it('an IPv4 client reported as IPv4-mapped IPv6 matches IPv4 entries and mapped entries alike', () => {
    const client = addr('::ffff:127.0.0.1');
    expect(inAnyCidr(client, cidrs('127.0.0.1/32'))).toBe(true);
    expect(inAnyCidr(client, cidrs('::ffff:127.0.0.1/128'))).toBe(true);
    expect(inAnyCidr(client, cidrs('::ffff:127.0.0.0/120'))).toBe(true);
    expect(inAnyCidr(addr('::ffff:127.0.0.2'), cidrs('::ffff:127.0.0.1/128'))).toBe(false);
  });

  it('never matches across address families', () => {
    expect(inAnyCidr(addr('127.0.0.1'), cidrs('::1/128'))).toBe(false);
    expect(inAnyCidr(addr('::1'), cidrs('127.0.0.1/32', '0.0.0.0/0'))).toBe(false);
    expect(inAnyCidr(addr('10.0.0.1'), cidrs('::/0'))).toBe(false);
  });

  it('an empty list matches nothing', () => {
    expect(inAnyCidr(addr('127.0.0.1'), [])).toBe(false);
  });
});
