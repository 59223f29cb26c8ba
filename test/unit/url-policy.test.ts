import { describe, expect, it } from 'vitest';
import { blockedHostname, blockedRange } from '@/server/delivery/address-policy';
import { checkWebhookUrl, MAX_URL_LENGTH, parseWebhookUrl, type Resolver } from '@/server/delivery/url-policy';

// A fake DNS: names map to the addresses a resolver would answer; anything else does not resolve.
const dns = new Map<string, string[]>([
  ['example.com', ['93.184.216.34']],
  ['dual.example.com', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']],
  ['v6only.example.com', ['2606:4700:4700::1111']],
  ['internal.example.com', ['10.0.0.5']],
  ['metadata.example.com', ['169.254.169.254']],
  ['loop.example.com', ['127.0.0.1']],
  ['loop6.example.com', ['::1']],
  ['mapped.example.com', ['::ffff:127.0.0.1']],
  ['ula.example.com', ['fd00:ec2::254']],
  ['cgnat.example.com', ['100.100.100.200']],
  // The rebinding trick: one public and one private answer, hoping the check reads the first.
  ['rebind.example.com', ['93.184.216.34', '127.0.0.1']],
  ['rebind6.example.com', ['2606:4700:4700::1111', 'fe80::1']],
  ['garbage.example.com', ['not-an-address']],
  // Would resolve to a public address: the name alone must be refused.
  ['localhost', ['93.184.216.34']],
  ['foo.localhost', ['93.184.216.34']],
]);
const resolve: Resolver = async (host) => {
  const found = dns.get(host);
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

type Expected = 'ok' | 'url_blocked_address' | 'url_not_https' | 'url_invalid' | 'url_unresolvable' | 'url_port_not_allowed';

const longUrl = (length: number) => {
  const base = 'https://example.com/';
  return base + 'a'.repeat(length - base.length);
};

// [url, expected outcome, why]
const corpus: [string, Expected, string][] = [
  // IPv4 loopback spelled every way WHATWG accepts
  ['https://127.0.0.1/', 'url_blocked_address', 'loopback'],
  ['https://2130706433/', 'url_blocked_address', 'decimal 127.0.0.1'],
  ['https://0177.0.0.1/', 'url_blocked_address', 'octal first octet'],
  ['https://0x7f.0.0.1/', 'url_blocked_address', 'hex first octet'],
  ['https://0x7f000001/', 'url_blocked_address', 'hex whole address'],
  ['https://017700000001/', 'url_blocked_address', 'octal whole address'],
  ['https://127.1/', 'url_blocked_address', 'short form'],
  ['https://127.0.1/', 'url_blocked_address', 'three-part short form'],
  ['https://127.0.0.1./', 'url_blocked_address', 'trailing dot on a literal'],
  ['https://%31%32%37.0.0.1/', 'url_blocked_address', 'percent-encoded digits'],
  ['https://１２７.０.０.１/', 'url_blocked_address', 'full-width digits'],
  ['https://127。0。0。1/', 'url_blocked_address', 'ideographic full stops'],
  ['https://127.0.0.1:8443/hooks', 'url_blocked_address', 'loopback with a port'],
  ['https://0.0.0.0/', 'url_blocked_address', 'unspecified'],
  ['https://0/', 'url_blocked_address', 'zero, i.e. 0.0.0.0'],
  ['https://0.1.2.3/', 'url_blocked_address', '0.0.0.0/8'],
  // IPv4 private and special ranges
  ['https://169.254.169.254/latest/meta-data/', 'url_blocked_address', 'cloud metadata (link-local)'],
  ['https://2852039166/', 'url_blocked_address', 'decimal 169.254.169.254'],
  ['https://100.64.0.1/', 'url_blocked_address', 'CGNAT'],
  ['https://100.127.255.254/', 'url_blocked_address', 'CGNAT upper end'],
  ['https://10.0.0.1/', 'url_blocked_address', 'private 10/8'],
  ['https://10.255.255.255/', 'url_blocked_address', 'private 10/8 upper end'],
  ['https://172.16.0.1/', 'url_blocked_address', 'private 172.16/12'],
  ['https://172.31.255.255/', 'url_blocked_address', 'private 172.16/12 upper end'],
  ['https://192.168.1.1/', 'url_blocked_address', 'private 192.168/16'],
  ['https://224.0.0.1/', 'url_blocked_address', 'multicast'],
  ['https://239.255.255.250/', 'url_blocked_address', 'multicast (SSDP)'],
  ['https://255.255.255.255/', 'url_blocked_address', 'broadcast'],
  ['https://240.0.0.1/', 'url_blocked_address', 'reserved 240/4'],
  ['https://198.18.0.1/', 'url_blocked_address', 'benchmarking 198.18/15'],
  ['https://192.0.2.1/', 'url_blocked_address', 'documentation TEST-NET-1'],
  ['https://192.0.0.8/', 'url_blocked_address', 'IETF protocol assignments'],
  // IPv6 literals
  ['https://[::]/', 'url_blocked_address', 'IPv6 unspecified'],
  ['https://[::1]/', 'url_blocked_address', 'IPv6 loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'url_blocked_address', 'IPv6 loopback, long form'],
  ['https://[::ffff:127.0.0.1]/', 'url_blocked_address', 'IPv4-mapped loopback'],
  ['https://[::ffff:7f00:1]/', 'url_blocked_address', 'IPv4-mapped loopback, hex'],
  ['https://[::ffff:10.0.0.1]/', 'url_blocked_address', 'IPv4-mapped private'],
  ['https://[::ffff:169.254.169.254]/', 'url_blocked_address', 'IPv4-mapped metadata'],
  ['https://[::ffff:0:10.0.0.1]/', 'url_blocked_address', 'IPv4-translated (RFC 6145) private'],
  ['https://[::127.0.0.1]/', 'url_blocked_address', 'IPv4-compatible (deprecated) loopback'],
  ['https://[::10.0.0.1]/', 'url_blocked_address', 'IPv4-compatible private'],
  ['https://[::a00:1]/', 'url_blocked_address', 'IPv4-compatible private, hex'],
  ['https://[::8.8.8.8]/', 'url_blocked_address', 'IPv4-compatible is deprecated even around a public address'],
  ['https://[64:ff9b::10.0.0.1]/', 'url_blocked_address', 'NAT64 wrapping a private address'],
  ['https://[64:ff9b::127.0.0.1]/', 'url_blocked_address', 'NAT64 wrapping loopback'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'url_blocked_address', 'NAT64 wrapping metadata'],
  ['https://[64:ff9b:1::808:808]/', 'url_blocked_address', 'local-use NAT64 prefix (RFC 8215)'],
  ['https://[64:ff9b::1:0:0:1]/', 'url_blocked_address', 'inside 64:ff9b::/32 but not the /96'],
  ['https://[2002:0a00:0001::1]/', 'url_blocked_address', '6to4 wrapping 10.0.0.1'],
  ['https://[2002:7f00:1::1]/', 'url_blocked_address', '6to4 wrapping 127.0.0.1'],
  ['https://[2002:a9fe:a9fe::1]/', 'url_blocked_address', '6to4 wrapping metadata'],
  ['https://[fc00::1]/', 'url_blocked_address', 'ULA fc00::/7'],
  ['https://[fd12::1]/', 'url_blocked_address', 'ULA fd00::/8'],
  ['https://[fd00:ec2::254]/', 'url_blocked_address', 'AWS IPv6 metadata (ULA)'],
  ['https://[fe80::1]/', 'url_blocked_address', 'IPv6 link-local'],
  ['https://[fec0::1]/', 'url_blocked_address', 'deprecated site-local'],
  ['https://[ff02::1]/', 'url_blocked_address', 'IPv6 multicast'],
  ['https://[2001:db8::1]/', 'url_blocked_address', 'IPv6 documentation'],
  ['https://[2001::1]/', 'url_blocked_address', 'Teredo'],
  ['https://[100::1]/', 'url_blocked_address', 'discard prefix'],
  ['https://[100:0:0:1::1]/', 'url_blocked_address', 'outside 2000::/3, unallocated'],
  // Names that always mean this machine
  ['https://localhost/', 'url_blocked_address', 'localhost'],
  ['https://localhost./', 'url_blocked_address', 'localhost with a trailing dot'],
  ['https://localhost../', 'url_blocked_address', 'localhost with two trailing dots'],
  ['https://LOCALHOST/', 'url_blocked_address', 'localhost in capitals'],
  ['https://foo.localhost/', 'url_blocked_address', 'a .localhost subdomain'],
  ['https://foo.LocalHost./', 'url_blocked_address', 'mixed case with trailing dot'],
  ['https://localhost.localdomain/', 'url_blocked_address', 'localhost.localdomain'],
  // DNS names resolving to non-public addresses (the fake resolver)
  ['https://internal.example.com/', 'url_blocked_address', 'resolves to 10/8'],
  ['https://INTERNAL.Example.COM./', 'url_blocked_address', 'same, capitals and trailing dot'],
  ['https://metadata.example.com/', 'url_blocked_address', 'resolves to 169.254.169.254'],
  ['https://loop.example.com/', 'url_blocked_address', 'resolves to 127.0.0.1'],
  ['https://loop6.example.com/', 'url_blocked_address', 'resolves to ::1'],
  ['https://mapped.example.com/', 'url_blocked_address', 'resolves to ::ffff:127.0.0.1'],
  ['https://ula.example.com/', 'url_blocked_address', 'resolves to a ULA'],
  ['https://cgnat.example.com/', 'url_blocked_address', 'resolves to CGNAT'],
  ['https://rebind.example.com/', 'url_blocked_address', 'resolves to [public, private]'],
  ['https://rebind6.example.com/', 'url_blocked_address', 'resolves to [public v6, link-local v6]'],
  ['https://garbage.example.com/', 'url_blocked_address', 'resolver answers something that is not an address'],
  ['https://nowhere.example.com/', 'url_unresolvable', 'does not resolve'],
  ['https://nowhere.invalid/', 'url_unresolvable', 'does not resolve (.invalid)'],
  // Scheme
  ['http://example.com/', 'url_not_https', 'plain http'],
  ['HTTP://example.com/', 'url_not_https', 'plain http, capitals'],
  ['ftp://example.com/', 'url_not_https', 'ftp'],
  ['javascript:alert(1)', 'url_not_https', 'javascript:'],
  ['file:///etc/passwd', 'url_not_https', 'file:'],
  ['wss://example.com/', 'url_not_https', 'websocket'],
  // Malformed, credentials, length
  ['example.com/hooks', 'url_invalid', 'no scheme'],
  ['https://', 'url_invalid', 'no host'],
  ['https://exa mple.com/', 'url_invalid', 'space in the host'],
  ['https://[::1/', 'url_invalid', 'unclosed bracket'],
  ['https://[fe80::1%25eth0]/', 'url_invalid', 'zone id'],
  ['https://user:pass@example.com/', 'url_invalid', 'userinfo'],
  ['https://user@8.8.8.8/', 'url_invalid', 'user only, public literal'],
  ['https://user:pass@127.0.0.1/', 'url_invalid', 'userinfo before a blocked host'],
  ['https://:pass@example.com/', 'url_invalid', 'password only'],
  [longUrl(MAX_URL_LENGTH + 1), 'url_invalid', '2049 characters'],
  [longUrl(MAX_URL_LENGTH), 'ok', 'exactly 2048 characters'],
  // Allowed
  ['https://8.8.8.8/', 'ok', 'public IPv4 literal'],
  ['https://134744072/', 'ok', 'decimal 8.8.8.8'],
  ['https://172.32.0.1/', 'ok', 'just past 172.16/12'],
  ['https://100.128.0.1/', 'ok', 'just past CGNAT'],
  ['https://[2606:4700:4700::1111]/', 'ok', 'public IPv6 literal'],
  ['https://[::ffff:8.8.8.8]/', 'ok', 'IPv4-mapped public'],
  ['https://[64:ff9b::8.8.8.8]/', 'ok', 'NAT64 wrapping a public address'],
  ['https://[2002:808:808::1]/', 'ok', '6to4 wrapping a public address'],
  ['https://example.com/', 'ok', 'public name'],
  ['https://example.com./hooks?x=1', 'ok', 'public name with trailing dot'],
  ['https://EXAMPLE.com:8443/a/b', 'ok', 'capitals and a port'],
  ['https://dual.example.com/', 'ok', 'resolves to public v4 and v6'],
  ['https://v6only.example.com/', 'ok', 'resolves to public v6 only'],
  ['https://example.com\\@127.0.0.1/', 'ok', 'backslash ends the host, so the host is example.com'],
  // Ports: 443, or 1024 and up but for database, cache and control-plane ports
  ['https://example.com:443/', 'ok', 'the https port, spelt out'],
  ['https://example.com:9443/', 'ok', 'a high port'],
  ['https://example.com:22/', 'url_port_not_allowed', 'ssh'],
  ['https://example.com:25/', 'url_port_not_allowed', 'smtp'],
  ['https://example.com:80/', 'url_port_not_allowed', 'below 1024 and not 443'],
  ['https://example.com:6379/', 'url_port_not_allowed', 'redis'],
  ['https://example.com:5432/', 'url_port_not_allowed', 'postgres'],
  ['https://example.com:11211/', 'url_port_not_allowed', 'memcached'],
];

describe('refusal messages', () => {
  it('never say what a name resolves to', async () => {
    for (const url of [
      'https://loop.example.com/',
      'https://internal.example.com/',
      'https://metadata.example.com/',
      'https://127.0.0.1/',
    ]) {
      const result = await checkWebhookUrl(url, { allowPrivate: false, resolve });
      expect('code' in result && result.message).toBe('url does not point at a publicly routable address.');
    }
  });
});

describe('checkWebhookUrl corpus (private networks not allowed)', () => {
  it('has a corpus of at least 40 URLs', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  it.each(corpus)('%s → %s (%s)', async (url, expected) => {
    const result = await checkWebhookUrl(url, { allowPrivate: false, resolve });
    if (expected === 'ok') {
      expect('code' in result ? result : 'ok').toBe('ok');
      if (!('code' in result)) for (const a of result.addresses) expect(blockedRange(a)).toBeUndefined();
    } else {
      expect('code' in result ? result.code : `allowed: ${JSON.stringify(result)}`).toBe(expected);
    }
  });
});

describe('checkWebhookUrl with private networks allowed', () => {
  it.each(['https://127.0.0.1/', 'https://[::1]/', 'https://localhost/', 'https://internal.example.com/', 'https://rebind.example.com/'])(
    '%s is allowed',
    async (url) => {
      const result = await checkWebhookUrl(url, { allowPrivate: true, resolve });
      expect('code' in result ? result.code : 'ok').toBe('ok');
    },
  );

  it.each([
    ['http://127.0.0.1/', 'url_not_https'],
    ['https://user:pass@127.0.0.1/', 'url_invalid'],
    ['https://nowhere.example.com/', 'url_unresolvable'],
  ])('%s is still refused (%s)', async (url, code) => {
    const result = await checkWebhookUrl(url, { allowPrivate: true, resolve });
    expect('code' in result ? result.code : 'ok').toBe(code);
  });
});

describe('checkWebhookUrl resolution', () => {
  it('resolves the host without brackets, trailing dots or capitals, and returns the checked addresses', async () => {
    const asked: string[] = [];
    const result = await checkWebhookUrl('https://Dual.Example.COM../x', {
      allowPrivate: false,
      resolve: async (h) => {
        asked.push(h);
        return resolve(h);
      },
    });
    expect(asked).toEqual(['dual.example.com']);
    expect(result).toMatchObject({ host: 'dual.example.com', addresses: dns.get('dual.example.com') });
  });

  it('does not ask the resolver about IP literals or names that mean this machine', async () => {
    const asked: string[] = [];
    const spy: Resolver = async (h) => {
      asked.push(h);
      return ['8.8.8.8'];
    };
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://8.8.8.8/', 'https://localhost/', 'https://a.localhost/']) {
      await checkWebhookUrl(url, { allowPrivate: false, resolve: spy });
    }
    expect(asked).toEqual([]);
  });

  it('treats an empty answer as unresolvable', async () => {
    const result = await checkWebhookUrl('https://empty.example.com/', { allowPrivate: false, resolve: async () => [] });
    expect('code' in result && result.code).toBe('url_unresolvable');
  });

  it('parseWebhookUrl normalises the numeric IPv4 forms to a dotted quad', () => {
    for (const url of ['https://2130706433/', 'https://0177.0.0.1/', 'https://0x7f.0.0.1/', 'https://0x7f000001/', 'https://127.1/']) {
      const parsed = parseWebhookUrl(url);
      expect('host' in parsed && parsed.host).toBe('127.0.0.1');
    }
  });
});

describe('blockedRange', () => {
  it.each([
    // IPv6 forms that embed an IPv4 address are judged by it
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped:loopback'],
    ['::ffff:10.0.0.1', 'ipv4Mapped:private'],
    ['::ffff:a9fe:a9fe', 'ipv4Mapped:linkLocal'],
    ['::ffff:0:10.0.0.1', 'rfc6145:private'],
    ['64:ff9b::10.0.0.1', 'rfc6052:private'],
    ['64:ff9b::7f00:1', 'rfc6052:loopback'],
    ['64:ff9b::6440:1', 'rfc6052:carrierGradeNat'],
    ['2002:0a00:0001::1', '6to4:private'],
    ['2002:c0a8:0101::', '6to4:private'],
    ['2002:a9fe:a9fe:1::1', '6to4:linkLocal'],
    ['2002:7f00:1::', '6to4:loopback'],
    // ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d; it is the deprecated IPv4-compatible form, refused
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['::2', 'ipv4Compatible'],
    ['64:ff9b:1::a00:1', 'nat64LocalUse'],
    ['64:ff9b:1:ffff::', 'nat64LocalUse'],
    // Outside 2000::/3 and not otherwise named: not global unicast
    ['64:ff9b::1:0:0:1', 'reserved'],
    ['100:0:0:1::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['5f00::1', 'segmentRouting'],
    ['3fff::1', 'reserved'],
    // Not an address as the OS reads one: refused rather than guessed at
    ['127.1', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['', 'invalid'],
    ['example.com', 'invalid'],
    ['[::1]', 'invalid'],
  ])('%s → %s', (ip, range) => {
    expect(blockedRange(ip)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '93.184.216.34',
    '::ffff:8.8.8.8',
    '::ffff:0:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
  ])('%s is allowed', (ip) => {
    expect(blockedRange(ip)).toBeUndefined();
  });
});

describe('blockedHostname', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['a.b.localhost', true],
    ['localhost.localdomain', true],
    ['localhost.example.com', false],
    ['notlocalhost', false],
    ['example.com', false],
  ])('%s → %s', (name, blocked) => {
    expect(blockedHostname(name)).toBe(blocked);
  });
});
