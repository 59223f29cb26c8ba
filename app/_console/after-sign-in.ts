/**
 * Where sign-in sends the operator: `next` when it resolves to a page of this site, else the overview.
 * Resolved as the browser resolves it, not checked by its text: `/\host/x` and `/<tab>/host/x` start
 * with one slash, yet a browser reads both as `//host/x`, another site (both were found to redirect).
 * The answer is absolute, so no path of ours (`/.//host` resolves to the path `//host`) is read again
 * as a host.
 */
export function afterSignIn(next: string | null, origin: string): string {
  if (!next) return `${origin}/`;
  try {
    const url = new URL(next, origin);
    return url.origin === origin ? url.href : `${origin}/`;
  } catch {
    return `${origin}/`;
  }
}
