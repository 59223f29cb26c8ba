import pino from 'pino';
import type { Logger } from '../logger';

/**
 * The CLI's logger writes to stderr: stdout carries only the command's answer (one JSON object
 * with --json). Quiet by default (warnings and worse) unless LOG_LEVEL is set. The CLI logs no
 * request data; the redaction paths mirror server/logger.ts in case a verb logs an object.
 */
export function createCliLogger(level: string | undefined): Logger {
  return pino(
    {
      level: level ?? 'warn',
      base: { service: 'partner-delivery', component: 'admin-cli' },
      redact: { paths: ['api_key', 'apiKey', 'secret', 'password', '*.api_key', '*.secret', '*.password'], censor: '[redacted]' },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
