import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { operatorSchema } from '@/server/graphql/schema';
import { createTestOperator, gql, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

// The role policy, written out here rather than read from the decorators it checks: support reads
// everything, redelivers, replays, enables and disables subscriptions, ends its own sessions and
// changes its own password;
// every other mutation is admin's.
const SUPPORT_MAY = new Set(['redeliverEvent', 'startReplay', 'cancelReplay', 'setSubscriptionStatus', 'revokeSession', 'changePassword']);

let svc: TestService;
let admin: TestOperator;
let support: TestOperator;

beforeAll(async () => {
  svc = await startTestService();
  admin = await createTestOperator(svc, 'admin');
  support = await createTestOperator(svc, 'support');
});

const mutations = Object.values(operatorSchema().getMutationType()!.getFields());

/** A value of the right shape for a required argument: the call reaches the resolver, where roles are checked. */
function sample(type: GraphQLInputType): unknown {
  const inner = getNullableType(type);
  if (isListType(inner)) return [sample(inner.ofType)];
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  if (isInputObjectType(inner)) {
    return Object.fromEntries(Object.values(inner.getFields()).flatMap((f) => (isNonNullType(f.type) ? [[f.name, sample(f.type)]] : [])));
  }
  if (isScalarType(inner)) {
    return { Int: 1, Float: 1, Boolean: false, ID: '01J0000000000000000000000A', DateTimeISO: new Date().toISOString() }[inner.name] ?? 'x';
  }
  throw new Error(`no sample for ${String(inner)}`);
}

function callOf(field: (typeof mutations)[number]): { query: string; variables: Record<string, unknown> } {
  const required = field.args.filter((a) => isNonNullType(a.type));
  const params = required.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
  const named = getNamedType(field.type);
  const selection = isScalarType(named) || isEnumType(named) ? '' : ' { __typename }';
  return {
    query: `mutation${params ? `(${params})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`,
    variables: Object.fromEntries(required.map((a) => [a.name, sample(a.type)])),
  };
}

describe('every mutation', () => {
  it('lists the mutations it checks', () => {
    console.log(`[roles] ${mutations.length} mutations: ${mutations.map((m) => m.name).join(', ')}`);
    expect(mutations.length).toBeGreaterThan(0);
  });

  it.each(mutations.map((m) => [m.name, m]))(
    '%s: refused signed out, refused to support unless support may, never refused to admin',
    async (_, field) => {
      const { query, variables } = callOf(field);
      const signedOut = await gql({ baseUrl: svc.url, cookie: '' }, query, variables);
      expect(signedOut.status).toBe(401);
      expect(signedOut.errors?.[0]?.extensions?.code).toBe('unauthenticated');

      const asSupport = await gql(support, query, variables);
      const supportCodes = (asSupport.errors ?? []).map((e) => e.extensions?.code);
      if (SUPPORT_MAY.has(field.name)) expect(supportCodes).not.toContain('forbidden');
      else expect(supportCodes, JSON.stringify(asSupport.errors)).toEqual(['forbidden']);

      const asAdmin = await gql(admin, query, variables);
      expect((asAdmin.errors ?? []).map((e) => e.extensions?.code)).not.toContain('forbidden');
      // Whatever the sample values made the verb answer, it is a typed error, never an internal one.
      expect((asAdmin.errors ?? []).map((e) => e.extensions?.code)).not.toContain('internal_error');
    },
  );
});
