import { writeFileSync } from 'node:fs';
import { printOperatorSchema } from './schema';

// `npm run graphql:schema`: writes the committed schema.graphql from the resolvers.
writeFileSync(new URL('./schema.graphql', import.meta.url), printOperatorSchema());
console.log('wrote server/graphql/schema.graphql');
