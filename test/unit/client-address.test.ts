import { describe, expect, it } from 'vitest';
import { parseCidr, type Cidr } from '@/server/auth/cidr';
import { resolveClientAddress } from '@/server/auth/client-address';

const cidrs = (...texts: string[]): Cidr[] => texts.map((t) => parseCidr(t)!);
const resolve = (peer: string | null, xff: string | null, trusted: Cidr[]) => resolveClientAddress(peer, xff, trusted)?.toString();

describe('resolveClientAddress', () => {
  const proxy = cidrs('10.0.0.0/8', '2001:db8:ffff::/48');

  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(resolve('198.51.100.1', null, [])).toBe('198.51.100.1');
    expect(resolve('198.51.100.1', '203.0.113.9', [])).toBe('198.51.100.1');
    expect(resolve('10.0.0.1', '203.0.113.9', [])).toBe('10.0.0.1');
  });

  it('folds the IPv4-mapped form a dual-stack socket reports', () => {
    expect(resolve('::ffff:127.0.0.1', null, [])).toBe('127.0.0.1');
    expect(resolveClientAddress('::ffff:127.0.0.1', null, [])?.kind()).toBe('ipv4');
    expect(resolve('::1', null, [])).toBe('::1');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(resolve('198.51.100.1', '203.0.113.9', proxy)).toBe('198.51.100.1');
    expect(resolve('::ffff:198.51.100.1', '203.0.113.9', proxy)).toBe('198.51.100.1');
  });

  it('takes the right-most entry that is not a trusted proxy', () => {
    expect(resolve('10.0.0.1', '203.0.113.9', proxy)).toBe('203.0.113.9');
    expect(resolve('::ffff:10.0.0.1', '203.0.113.9', proxy)).toBe('203.0.113.9');
    // The client wrote the left entry itself; the proxy appended the real one.
    expect(resolve('10.0.0.1', '1.1.1.1, 203.0.113.9', proxy)).toBe('203.0.113.9');
    expect(resolve('10.0.0.1', '203.0.113.9, 198.51.100.7', proxy)).toBe('198.51.100.7');
    // Trusted hops on the right are skipped.
    expect(resolve('10.0.0.1', '203.0.113.9, 10.0.0.2, 10.0.0.3', proxy)).toBe('203.0.113.9');
    expect(resolve('10.0.0.1', '203.0.113.9,10.0.0.2', proxy)).toBe('203.0.113.9');
  });

  it('handles IPv6 and bracketed entries', () => {
    expect(resolve('2001:db8:ffff::1', '2001:db8::7', proxy)).toBe('2001:db8::7');
    expect(resolve('10.0.0.1', '[2001:db8::7]', proxy)).toBe('2001:db8::7');
    expect(resolve('10.0.0.1', '::ffff:203.0.113.9', proxy)).toBe('203.0.113.9');
  });

  it('accepts entries a proxy wrote with the client port', () => {
    expect(resolve('10.0.0.1', '203.0.113.9:443', proxy)).toBe('203.0.113.9');
    expect(resolve('10.0.0.1', '[2001:db8::7]:8443', proxy)).toBe('2001:db8::7');
    expect(resolve('10.0.0.1', '203.0.113.9, 10.0.0.2:51000', proxy)).toBe('203.0.113.9');
  });

  it('is the left-most entry when every hop is a trusted proxy', () => {
    expect(resolve('10.0.0.1', '10.0.0.2, 10.0.0.3', proxy)).toBe('10.0.0.2');
  });

  it('never goes past a malformed entry to the spoofable ones left of it', () => {
    const got = resolve('10.0.0.1', '203.0.113.9, garbage', proxy);
    expect(got).not.toBe('203.0.113.9');
    expect(resolve('10.0.0.1', '203.0.113.9, 0x7f.1', proxy)).not.toBe('203.0.113.9');
    expect(resolve('10.0.0.1', '203.0.113.9, 203.0.113.10:443', proxy)).not.toBe('203.0.113.9');
  });

  it('is the peer when X-Forwarded-For is empty or blank', () => {
    expect(resolve('10.0.0.1', '', proxy)).toBe('10.0.0.1');
    expect(resolve('10.0.0.1', ' , ', proxy)).toBe('10.0.0.1');
  });

  it('is undefined without a usable socket address', () => {
    expect(resolveClientAddress(null, '203.0.113.9', proxy)).toBeUndefined();
    expect(resolveClientAddress('', '203.0.113.9', proxy)).toBeUndefined();
    expect(resolveClientAddress('not-an-ip', '203.0.113.9', proxy)).toBeUndefined();
  });
});
