import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Collection, type Header, type Item } from 'postman-collection';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS_DIR, COLLECTION_FILE, DOCUMENT_FILE, generatedFiles } from '@/clients/generated-files';
import { COLLECTION_VARIABLES } from '@/clients/postman-collection';
import { authType, collectionRequests, itemsOf, resolvedUrl } from './postman';

// The committed client files (clients/) are what the current routes generate, and the Postman collection
// is one Postman loads, with a request for every operation. Running them against the service:
// test/clients/partner-client.test.ts.

let generated: Record<string, string>;
const committed = (file: string) => readFileSync(path.join(CLIENTS_DIR, file), 'utf8');

beforeAll(async () => {
  generated = await generatedFiles();
});

describe('npm run client:generate', () => {
  it('has been run: every committed file is what the current routes generate', () => {
    for (const [file, content] of Object.entries(generated)) {
      expect(committed(file) === content, `clients/${file} is stale: run npm run client:generate and commit it`).toBe(true);
    }
  });
});

describe('the Postman collection', () => {
  const document = () => JSON.parse(generated[DOCUMENT_FILE]!) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const collection = () => new Collection(JSON.parse(generated[COLLECTION_FILE]!));

  it('loads as a Postman v2.1 collection', () => {
    const json = JSON.parse(generated[COLLECTION_FILE]!) as { info: { schema: string; name: string } };
    expect(json.info.schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    const loaded = collection();
    expect(loaded.name).toBe(json.info.name);
    expect(collectionRequests(loaded).length).toBeGreaterThan(0);
    // What the SDK loaded, written out and loaded again, holds the same requests: nothing was dropped as unknown.
    expect(collectionRequests(new Collection(loaded.toJSON())).map((r) => `${r.method} ${r.path}`)).toEqual(
      collectionRequests(loaded).map((r) => `${r.method} ${r.path}`),
    );
  });

  it('has a request for every operation of the OpenAPI document, and nothing else', () => {
    const operations = Object.entries(document().paths)
      .flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    const requests = collectionRequests(collection())
      .map(({ method, path: p }) => `${method} ${p}`)
      .sort();
    expect(requests).toEqual(operations);
  });

  it("resolves every request's URL against {{baseUrl}}, with the collection's own variables", () => {
    const loaded = collection();
    expect(Object.keys(loaded.variables.toObject()).sort()).toEqual(Object.keys(COLLECTION_VARIABLES).sort());
    const base = 'https://partner.example:8443';
    itemsOf(loaded).forEach((item: Item) => {
      expect(item.request.url.toString().startsWith('{{baseUrl}}/'), item.name).toBe(true);
      const url = resolvedUrl(loaded, item, { baseUrl: base });
      expect(url.origin, item.name).toBe(base);
      expect(url.href, item.name).not.toMatch(/\{\{|%7B%7B/);
    });
  });

  it('sends the credential as the API asks: X-API-Key from the auth, X-Client-ID a header, none on public routes', () => {
    const loaded = collection();
    const auth = loaded.auth!.parameters().toObject();
    expect(auth).toEqual({ key: 'X-API-Key', value: '{{apiKey}}', in: 'header' });
    const publicOps = new Set(
      Object.entries(document().paths).flatMap(([p, methods]) =>
        Object.entries(methods)
          .filter(([, op]) => op.security?.length === 0)
          .map(([m]) => `${m.toUpperCase()} ${p}`),
      ),
    );
    expect(publicOps.size).toBeGreaterThan(0);
    for (const { method, path: p, item } of collectionRequests(loaded)) {
      const name = `${method} ${p}`;
      const clientId = (item.request.headers.all() as Header[]).find((h) => h.key === 'X-Client-ID' && !h.disabled)?.value;
      if (publicOps.has(name)) {
        expect(authType(item.request.auth), name).toBe('noauth');
        expect(clientId, name).toBeUndefined();
      } else {
        expect(item.request.auth, name).toBeUndefined();
        expect(clientId, name).toBe('{{clientId}}');
      }
    }
  });
});

describe("the client's README", () => {
  it('shows code that is in examples/quick-start.ts, which the typecheck compiles and the tests run', () => {
    const readme = readFileSync(path.join(CLIENTS_DIR, 'typescript/README.md'), 'utf8');
    const example = readFileSync(path.join(CLIENTS_DIR, 'typescript/examples/quick-start.ts'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) expect(example, block).toContain(block);
  });
});
