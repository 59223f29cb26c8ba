import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachingResolver } from '@/server/delivery/dns-cache';
import { checkWebhookUrl } from '@/server/delivery/url-policy';

describe('cachingResolver', () => {
  afterEach(() => vi.useRealTimers());

  it('asks once per name within the TTL, and a rebinding answer after it is still refused by the policy', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    let answer = ['93.184.216.34'];
    const asked: string[] = [];
    const resolve = cachingResolver(
      async (host) => {
        asked.push(host);
        return answer;
      },
      { ttlMs: 30_000, maxNames: 2 },
    );
    const check = () => checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false, resolve });
    await Promise.all([check(), check()]);
    expect(await check()).toMatchObject({ addresses: ['93.184.216.34'] });
    expect(asked).toEqual(['hooks.example.com']);

    answer = ['127.0.0.1'];
    vi.advanceTimersByTime(30_001);
    expect(await check()).toMatchObject({ code: 'url_blocked_address' });
    expect(asked).toHaveLength(2);
  });

  it('forgets failed lookups and keeps at most maxNames answers', async () => {
    const asked: string[] = [];
    let fail = true;
    const resolve = cachingResolver(
      async (host) => {
        asked.push(host);
        if (fail) throw new Error('SERVFAIL');
        return ['93.184.216.34'];
      },
      { ttlMs: 30_000, maxNames: 2 },
    );
    await expect(resolve('a.example')).rejects.toThrow('SERVFAIL');
    fail = false;
    await resolve('a.example');
    await resolve('b.example');
    await resolve('c.example'); // evicts a.example, the oldest
    await resolve('b.example');
    await resolve('a.example');
    expect(asked).toEqual(['a.example', 'a.example', 'b.example', 'c.example', 'a.example']);
  });
});
