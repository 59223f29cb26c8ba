import { EnvError } from '../config/env';
import { AppError, isDatabaseUnavailable } from '../errors';
import { UsageError } from './usage-error';

export interface Failure {
  exitCode: 1 | 2;
  code: string;
  message: string;
  param?: string;
}

/** Any error of a command line, as its exit code and the JSON error the CLI prints. */
export function toFailure(e: unknown): Failure {
  if (e instanceof UsageError) return { exitCode: 2, code: e.code, message: e.message, param: e.param };
  if (e instanceof EnvError) return { exitCode: 2, code: 'invalid_environment', message: e.message.replace(/:?\n\s*/g, ': ').trim() };
  if (e instanceof AppError) {
    // A verb's own validation (the CLI checks flags first, so rarely reached) is a bad command line too.
    if (e.kind === 'invalid_request') return { exitCode: 2, code: e.code, message: e.message, param: e.details.param };
    // Not found, conflict: the API's `param` ("id") names no flag here, so it is left out.
    return { exitCode: 1, code: e.code, message: e.message };
  }
  const message = e instanceof Error ? e.message : String(e);
  if (isDatabaseUnavailable(e)) return { exitCode: 1, code: 'database_unavailable', message: `The database is unreachable: ${message}` };
  return { exitCode: 1, code: 'internal_error', message };
}

/** The message on stderr; with --json the error object on stdout too. Returns the exit code. */
export async function reportFailure(json: boolean, f: Failure): Promise<number> {
  process.stderr.write(`error: ${f.message}\n`);
  if (json) await print(JSON.stringify({ error: { code: f.code, message: f.message, ...(f.param ? { param: f.param } : {}) } }));
  return f.exitCode;
}

export function print(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text + '\n', () => resolve()));
}
