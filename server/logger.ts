import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

// Secrets never reach a log line: request headers are not logged, and these paths are censored
// in case a caller passes an object that carries one.
const REDACT = ['api_key', 'apiKey', 'secret', 'password', 'headers["x-api-key"]', '*.api_key', '*.secret', '*.password'];

/** JSON lines on stdout, or on `destination`; `component` names the program when it is not the service. */
export function createLogger(level: string, opts: { component?: string; destination?: DestinationStream } = {}): Logger {
  const base = { service: 'partner-delivery', ...(opts.component ? { component: opts.component } : {}) };
  return pino({ level, base, redact: { paths: REDACT, censor: '[redacted]' } }, opts.destination);
}
