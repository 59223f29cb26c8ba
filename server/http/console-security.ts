import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The console's pages may be framed by no one (clickjacking: a page of another site showing ours in
 * a transparent frame over its own buttons), and run only the scripts they were sent with.
 *
 * Scripts: Next writes its inline bootstrap scripts with the nonce it finds in the request's policy
 * (`content-security-policy`, as middleware would set it), so a fresh nonce per request goes into the
 * request headers and the same policy into the response; the root layout renders every page per
 * request, since a prerendered page would carry no nonce. Styles keep 'unsafe-inline': React's
 * `style` attributes (the charts) are inline styles, and a style cannot run code.
 */
export function secureConsoleResponse(req: IncomingMessage, res: ServerResponse): void {
  const policy = consolePolicy(randomBytes(16).toString('base64'));
  // Overwrites any client-sent copy: the nonce is ours alone.
  req.headers['content-security-policy'] = policy;
  delete req.headers['content-security-policy-report-only'];
  res.setHeader('content-security-policy', policy);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
}

export function consolePolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
