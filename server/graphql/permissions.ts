import { getMetadataStorage } from 'type-graphql';
import type { OperatorRole } from '@/server/context';

/**
 * The mutations a role may call, read from the resolvers' own `@Authorized` decorators, so the
 * console's idea of what to show can never drift from what the API allows.
 */
export function allowedMutations(role: OperatorRole): string[] {
  const storage = getMetadataStorage();
  return storage.mutations
    .filter((m) => {
      const roles = storage.authorizedFields.find((a) => a.target === m.target && a.fieldName === m.methodName)?.roles ?? [];
      return role === 'admin' || roles.length === 0 || roles.includes(role);
    })
    .map((m) => m.schemaName)
    .sort();
}
