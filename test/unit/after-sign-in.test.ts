import { describe, expect, it } from 'vitest';
import { afterSignIn } from '@/app/_console/after-sign-in';

const SITE = 'http://127.0.0.1:3000';

describe('where sign-in sends the operator', () => {
  it('keeps a path of this site, with its query and fragment', () => {
    expect(afterSignIn('/deliveries?status=failed#top', SITE)).toBe(`${SITE}/deliveries?status=failed#top`);
    expect(afterSignIn(null, SITE)).toBe(`${SITE}/`);
  });

  it('refuses every spelling of another site, as the browser would read it', () => {
    for (const next of [
      '//127.0.0.5:8081/phish',
      '/\\127.0.0.5:8081/phish',
      '/\t/127.0.0.5:8081/phish',
      '\\\\127.0.0.5:8081/phish',
      'https://127.0.0.5:8081/phish',
      'javascript:alert(1)',
      'http://127.0.0.1:3001/',
      ' //127.0.0.5/phish',
    ]) {
      expect(afterSignIn(next, SITE), next).toBe(`${SITE}/`);
    }
  });

  it('answers an absolute URL, so a path that reads like a host is never read again as one', () => {
    const target = afterSignIn('/.//127.0.0.5:8081/phish', SITE);
    expect(new URL(target).origin).toBe(SITE);
  });
});
