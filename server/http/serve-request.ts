import { newRequestId } from '../ids';
import type { Logger } from '../logger';
import { errorResponse } from './error-response';
import { loggedPath } from './logged-path';

/** What a route kind adds to the step: fields for the log line, and whether to write it at all. */
export interface RequestRecord {
  readonly requestId: string;
  /** More fields for the access log line (client_id, operator_id, ...). */
  fields: Record<string, unknown>;
  /** False: no log line for this request (the partner route samples failed authentications). */
  log: boolean;
}

/**
 * The step every kind of route shares (partner, operator, public): a request id, the route's answer or
 * its error mapped by the one table (error-response.ts), `X-Request-Id` on the response, and one access
 * log line whose path has one-time tokens redacted (logged-path.ts). `finish` sees the response before
 * it is stamped and logged (the partner route adds its rate-limit headers and counts the request there).
 */
export async function serveRequest(
  request: Request,
  log: Logger,
  message: string,
  handle: (record: RequestRecord) => Promise<Response>,
  finish?: (response: Response, record: RequestRecord) => void,
): Promise<Response> {
  const started = performance.now();
  const record: RequestRecord = { requestId: newRequestId(), fields: {}, log: true };
  let response: Response;
  try {
    response = await handle(record);
  } catch (error) {
    response = errorResponse(error, record.requestId, log);
  }
  finish?.(response, record);
  response.headers.set('x-request-id', record.requestId);
  if (record.log) {
    log.info(
      {
        request_id: record.requestId,
        method: request.method,
        path: loggedPath(request.url),
        status: response.status,
        ms: Math.round(performance.now() - started),
        ...record.fields,
      },
      message,
    );
  }
  return response;
}
