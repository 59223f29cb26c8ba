import { registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';

export const ENVIRONMENTS = { sandbox: 'sandbox', production: 'production' } as const satisfies Record<Environment, Environment>;
registerEnumType(ENVIRONMENTS, { name: 'Environment', description: "A partner's sandbox or production: separate keys, data and events." });
