import pino from 'pino';
import { createLogger, type Logger } from '../logger';

/**
 * The CLI's logger writes to stderr: stdout carries only the command's answer (one JSON object
 * with --json). Quiet by default (warnings and worse) unless LOG_LEVEL is set.
 */
export function createCliLogger(level: string | undefined): Logger {
  return createLogger(level ?? 'warn', { component: 'admin-cli', destination: pino.destination({ fd: 2, sync: true }) });
}
