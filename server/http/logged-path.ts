/**
 * The path as a log line, a metric or an error may show it: every segment that could be a one-time
 * token becomes `[redacted]`. The hand-over page asked `/api/handover/<token>` for its status on load,
 * before the partner pressed the button, and that path was logged (9 lines for one link): whoever read
 * the log in that window could open the link and see the key.
 *
 * The rule is by shape, not by route, so that a token route added later is covered without a list to
 * keep: our tokens are 256 random bits in base64url (43 characters, server/sessions/token.ts), and
 * nothing else the platform puts in a path is that long (ids are ULIDs of 26, client ids 29).
 *
 * `url` is absolute, or a request target (/partner/quotes?x=1). A target of plain segments is its own
 * pathname; anything else (dot segments, escapes, backslashes) is normalised by URL as before.
 */
export function loggedPath(url: string): string {
  const path = targetPath(url);
  // Most paths hold no segment that long: returned as they are, without splitting every request's path (perf of the
  // access line: the split and join were a third of its own time).
  if (!hasTokenLikeSegment(path)) return path;
  return path
    .split('/')
    .map((segment) => (segment.length >= TOKEN_LIKE_LENGTH ? '[redacted]' : segment))
    .join('/');
}

function hasTokenLikeSegment(path: string): boolean {
  if (path.length < TOKEN_LIKE_LENGTH) return false;
  let start = 0;
  for (;;) {
    const end = path.indexOf('/', start);
    if ((end < 0 ? path.length : end) - start >= TOKEN_LIKE_LENGTH) return true;
    if (end < 0) return false;
    start = end + 1;
  }
}

/** The pathname URL gives a request target (or an absolute URL): plain targets as they are, without parsing. */
export function targetPath(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (PLAIN_PATH.test(path)) return path;
  try {
    return new URL(url.startsWith('/') ? `http://localhost${url}` : url).pathname;
  } catch {
    return path;
  }
}

/** Shorter than any token we issue (43), longer than any id we print (29). */
const TOKEN_LIKE_LENGTH = 32;
// Segments URL would leave as they are: no dot segment, no escape, no backslash, nothing outside the unreserved set.
const PLAIN_PATH = /^(?=\/)(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._~-]+)*\/?$/;
