'use client';

import { useEffect } from 'react';

/**
 * Keeps a view current: reads it again every `everyMs` past urql's cache (urql has no polling of its own)
 * while the tab is visible. A hidden tab asks nothing; shown again, it reads at once. `null` stops: nothing
 * on the page is moving (each page says when, from what it shows).
 */
export function usePoll(reexecute: (opts: { requestPolicy: 'network-only' }) => void, everyMs: number | null): void {
  useEffect(() => {
    if (everyMs === null) return;
    const read = () => reexecute({ requestPolicy: 'network-only' });
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer === undefined && document.visibilityState === 'visible') timer = setInterval(read, everyMs);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => {
      if (document.visibilityState !== 'visible') return stop();
      read();
      start();
    };
    start();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [everyMs, reexecute]);
}
