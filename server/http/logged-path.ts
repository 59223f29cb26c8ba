/**
 * The path as a log line, a metric or an error may show it: every segment that could be a one-time
 * token becomes `[redacted]`. The hand-over page asked `/api/handover/<token>` for its status on load,
 * before the partner pressed the button, and that path was logged (9 lines for one link): whoever read
 * the log in that window could open the link and see the key.
 *
 * The rule is by shape, not by route, so that a token route added later is covered without a list to
 * keep: our tokens are 256 random bits in base64url (43 characters, server/sessions/token.ts), and
 * nothing else the platform puts in a path is that long (ids are ULIDs of 26, client ids 29).
 */
export function loggedPath(url: string): string {
  const { pathname } = new URL(url, 'http://localhost');
  return pathname
    .split('/')
    .map((segment) => (segment.length >= TOKEN_LIKE_LENGTH ? '[redacted]' : segment))
    .join('/');
}

/** Shorter than any token we issue (43), longer than any id we print (29). */
const TOKEN_LIKE_LENGTH = 32;
