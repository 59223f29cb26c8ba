'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback } from 'react';

/**
 * Filters and cursors live in the URL, so a support link opens the same view. Returns the current
 * values of `keys` (absent ones undefined) and a setter that replaces them (empty strings removed).
 */
export function useUrlState<K extends string>(
  keys: readonly K[],
): [Partial<Record<K, string>>, (next: Partial<Record<K, string | undefined>>) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const values: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const v = params.get(key);
    if (v) values[key] = v;
  }
  const set = useCallback(
    (next: Partial<Record<K, string | undefined>>) => {
      const merged = new URLSearchParams(params.toString());
      for (const [key, value] of Object.entries(next) as [K, string | undefined][]) {
        if (value) merged.set(key, value);
        else merged.delete(key);
      }
      const query = merged.toString();
      router.push(query ? `${pathname}?${query}` : pathname);
    },
    [params, pathname, router],
  );
  return [values, set];
}
