import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENTS_DIR, generatedFiles } from './generated-files';

// `npm run client:generate`: writes the OpenAPI document, the TypeScript client's types and the Postman
// collection under clients/ from the current route table. Commit what it changes.
for (const [file, content] of Object.entries(await generatedFiles())) {
  const target = path.join(CLIENTS_DIR, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, content);
  console.log(`wrote clients/${file}`);
}
