import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

// Secrets never reach a log line: request headers are not logged, and these paths are censored
// in case a caller passes an object that carries one.
const REDACT = ['api_key', 'apiKey', 'secret', 'password', 'headers["x-api-key"]', '*.api_key', '*.secret', '*.password'];

/** JSON lines on stdout, or on `destination`; `component` names the program when it is not the service. */
export function createLogger(level: string, opts: { component?: string; destination?: DestinationStream } = {}): Logger {
  const base = { service: 'partner-delivery', ...(opts.component ? { component: opts.component } : {}) };
  return pino(
    { level, base, redact: { paths: REDACT, censor: '[redacted]' }, serializers: { err: loggableError } },
    opts.destination ?? stdoutAsync(),
  );
}

/**
 * stdout, written asynchronously and in batches: lines wait until 4 KiB of them (about 20) are buffered,
 * or at most FLUSH_MS, and go out in one write. pino's default writes each line with its own blocking
 * write(2), which on a terminal or a pipe cost the default `npm start` process a system call per request;
 * written asynchronously one line at a time, each line still cost a round trip through libuv's thread pool
 * (`npm run bench -- overhead --profile`: the access line took 83 us of a partner request's 396 us, 63 of
 * them in the write). What is buffered is flushed when the process exits, also on an uncaught error; only a
 * SIGKILL loses it (at most FLUSH_MS of lines). One batch per process: every logger shares it.
 */
function stdoutAsync(): DestinationStream {
  return (stdoutBatch ??= new LineBatch(pino.destination({ dest: 1, sync: false, minLength: 0 })));
}

let stdoutBatch: LineBatch | undefined;

/**
 * The batch is a list of lines joined once per write. sonic-boom's own batching (minLength) appends each line
 * to one string and measures that string's byte length at every line, which flattens it: 8.5 KB allocated per
 * partner request for a ~250-byte access line, a quarter of all a request allocates (V8's sampling heap
 * profiler over 20,000 in-process GET /partner/event-types, 2026-11-27).
 */
class LineBatch implements DestinationStream {
  private lines: string[] = [];
  private length = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly out: ReturnType<typeof pino.destination>) {
    process.on('exit', () => {
      this.flush();
      try {
        out.flushSync();
      } catch {
        // Not open yet, or already closed: nothing more can be written.
      }
    });
  }

  write(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= BATCH_CHARACTERS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.out.write(text);
  }
}

const BATCH_CHARACTERS = 4096;
const FLUSH_MS = 200;

export interface LoggableError {
  type: string;
  code?: string;
  message: string;
  /** Where it was thrown: the stack's frames, without its first line (which repeats the message). */
  at?: string[];
}

/**
 * What a log line may say of an error: its kind, code and the first line of its own message, never
 * a failed statement's parameters. Drizzle's errors read "Failed query: <sql>\nparams: <values>",
 * and the values of a write are what it writes: a sealed secret, a stored answer, a password hash.
 * Every `err` field of every log line passes through here (the logger's serializer).
 */
export function loggableError(error: unknown): LoggableError | string {
  if (!(error instanceof Error)) return scrub(String(error));
  // Drizzle wraps the driver's error: the database's own message names the problem without values.
  const inner = error.message.startsWith('Failed query') && error.cause instanceof Error ? error.cause : error;
  const code = (inner as { code?: unknown }).code;
  return {
    type: inner.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: scrub(inner.message),
    at: inner.stack
      ?.split('\n')
      .filter((line) => line.trimStart().startsWith('at '))
      .slice(0, 8)
      .map((line) => line.trim()),
  };
}

function scrub(message: string): string {
  const cut = message.search(/\bparams:/);
  return (cut >= 0 ? message.slice(0, cut) : message).split('\n')[0]!.slice(0, 300);
}
