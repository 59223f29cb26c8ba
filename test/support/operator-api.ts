import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import type { OperatorRole } from '@/server/context';
import { createOperator } from '@/server/operators/create';
import type { RunningProcess } from '@/server/boot/start-process';

export interface TestOperator {
  id: string;
  email: string;
  password: string;
  role: OperatorRole;
  baseUrl: string;
  /** The session cookie (`pdp_session=...`), after signIn. */
  cookie: string;
}

/** A new operator of `role`, signed in. */
export async function createTestOperator(svc: RunningProcess & { url: string }, role: OperatorRole = 'admin'): Promise<TestOperator> {
  const email = `op-${randomBytes(6).toString('hex')}@example.com`;
  const password = randomBytes(12).toString('base64url');
  const created = await createOperator({ ctx: cliContext(svc.rt, 'test'), input: { email, password, role } });
  const operator = { id: created.id, email, password, role, baseUrl: svc.url, cookie: '' };
  const res = await signIn(svc.url, email, password);
  expect(res.status, await res.clone().text()).toBe(200);
  operator.cookie = cookieOf(res);
  return operator;
}

export function signIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });
}

/** `pdp_session=<token>` from a sign-in answer's Set-Cookie. */
export function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0] ?? '';
}

export interface GraphQLReply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the API answered
  data: any;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; param?: string } }[];
}

/** One GraphQL operation as `who` (a signed-in operator, or just a base URL and any cookie). */
export async function gql(
  who: Pick<TestOperator, 'baseUrl' | 'cookie'>,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLReply> {
  const res = await fetch(`${who.baseUrl}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: who.cookie, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  let body: { data?: unknown; errors?: GraphQLReply['errors']; error?: { code: string; message: string } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 300)}`);
  }
  // The route's own refusals (no session) come in the REST error envelope: shown here as a GraphQL error.
  const errors = body.errors ?? (body.error ? [{ message: body.error.message, extensions: { code: body.error.code } }] : undefined);
  return { status: res.status, data: body.data, errors };
}

/** The data of an operation that must succeed. */
export async function gqlData(
  who: Pick<TestOperator, 'baseUrl' | 'cookie'>,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GraphQLReply['data']> {
  const reply = await gql(who, query, variables);
  expect(reply.errors, JSON.stringify(reply.errors)).toBeUndefined();
  return reply.data;
}
