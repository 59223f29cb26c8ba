import { isObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operatorSchema } from '@/server/graphql/schema';

// No type of the operator API can carry an API key, a key hash, a webhook secret, a session token
// or a password hash, to any role, under any alias (an alias renames a field; it cannot add one).
// The exceptions are shown once, in the answer of the mutation that makes them: an issued API key and
// a generated operator password.
const SECRET_NAME = /secret|password|hash|api_?key|token|key$/i;
const SHOWN_ONCE = new Set(['IssuedCredential.key', 'CreateOperatorResult.generatedPassword']);

describe('the operator schema', () => {
  it('has no field that could hold a secret', () => {
    const offending = Object.values(operatorSchema().getTypeMap())
      // A mutation is a verb (changePassword): what it answers is a type of its own, checked here too.
      .filter((t): t is GraphQLObjectType => isObjectType(t) && !t.name.startsWith('__') && t.name !== 'Mutation')
      .flatMap((t) => Object.keys(t.getFields()).map((f) => `${t.name}.${f}`))
      .filter((name) => SECRET_NAME.test(name.split('.')[1]!) && !SHOWN_ONCE.has(name));
    expect(offending).toEqual([]);
  });
});
