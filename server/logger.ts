import pino, { type Logger } from 'pino';

export type { Logger };

// Secrets never reach a log line: request headers are not logged, and these paths are censored
// in case a caller passes an object that carries one.
const REDACT = ['api_key', 'apiKey', 'secret', 'password', 'headers["x-api-key"]', '*.api_key', '*.secret', '*.password'];

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'partner-delivery' }, redact: { paths: REDACT, censor: '[redacted]' } });
}
