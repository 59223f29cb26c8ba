import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeEqual } from '@/server/auth/api-keys';

describe('safeEqual', () => {
  it('agrees with === for any two strings, NULs, surrogates and prefixes included', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(safeEqual(a, b)).toBe(a === b);
      }),
    );
    // A prefix, or the same text padded with what charCodeAt past the end would read as (NUL): never equal.
    fc.assert(
      fc.property(text, fc.string({ minLength: 1, maxLength: 4 }), (a, tail) => {
        expect(safeEqual(a + tail, a)).toBe(false);
        expect(safeEqual(a, a + tail)).toBe(false);
        expect(safeEqual(a + '\u0000', a)).toBe(false);
      }),
    );
  });

  it('is true for the same client id', () => {
    expect(safeEqual('ci_01M8BR7XVKP0YRN49XNEVDWJVJ', 'ci_01M8BR7XVKP0YRN49XNEVDWJVJ')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
  });
});
