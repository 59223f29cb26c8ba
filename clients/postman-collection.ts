/* eslint-disable @typescript-eslint/no-explicit-any -- a Postman collection and an OpenAPI document as plain JSON */

/** The variables a partner fills in (Postman: the collection's Variables tab, or an environment). */
export const COLLECTION_VARIABLES = {
  baseUrl: 'http://localhost:3000',
  clientId: '',
  apiKey: '',
};

interface Document {
  info: { version: string };
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, any> };
}

/**
 * openapi-to-postmanv2's collection, made ready to run and stable to commit:
 * - the credential is two headers (X-Client-ID and X-API-Key, both required), which Postman's API-key auth
 *   cannot hold: the key is the collection's auth, the client id a header on each authenticated request;
 *   public operations (empty `security`) send neither;
 * - `baseUrl`, `clientId` and `apiKey` are the collection's variables;
 * - bodies, query and path values come from the document's examples, else the required fields with a
 *   `<type>` placeholder: the converter fakes values at random (patterns through a regex generator, numbers
 *   anywhere in range), so two runs wrote different files; its random ids go for the same reason (Postman
 *   gives each item one on import);
 * - no saved response examples: they were 90 % of its 1.4 MB, all faked; the reference (/docs, the OpenAPI
 *   document) shows the answers.
 */
export function brandCollection(collection: Record<string, any>, document: Document): Record<string, any> {
  const { _postman_id: _random, ...info } = collection.info ?? {};
  return {
    info,
    item: (collection.item ?? []).map((item: any) => branded(item, document)),
    auth: {
      type: 'apikey',
      apikey: [
        { key: 'key', value: 'X-API-Key', type: 'string' },
        { key: 'value', value: '{{apiKey}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    },
    variable: Object.entries(COLLECTION_VARIABLES).map(([key, value]) => ({ key, value, type: 'string' })),
  };
}

function branded(item: any, document: Document): any {
  const { id: _random, response: _faked, ...rest } = item;
  if (rest.item) return { ...rest, item: rest.item.map((child: any) => branded(child, document)) };
  const request = rest.request;
  const path = '/' + (request.url.path as string[]).map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/');
  const method = String(request.method).toLowerCase();
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`the collection's ${request.method} ${path} is no operation of the document`);
  const parameter = (where: string, name: string) =>
    (operation.parameters ?? []).find((p: any) => p.in === where && p.name.toLowerCase() === name.toLowerCase());
  const valueOf = (where: string, name: string, fallback: string) => {
    if (where === 'header' && name === 'Idempotency-Key') return '{{$guid}}'; // Postman's fresh uuid per send
    if (where === 'header' && name === 'X-Service-Version') return document.info.version;
    const p = parameter(where, name);
    return p ? String(exampleOf(p.schema, document) ?? fallback) : fallback;
  };

  const isPublic = operation.security?.length === 0;
  const headers = (request.header ?? [])
    .filter((h: any) => h.key.toLowerCase() !== 'x-client-id')
    .map((h: any) => ({ ...h, value: valueOf('header', h.key, h.value) }));
  const { auth: _inherited, body: _body, ...plain } = request;
  const body = operation.requestBody?.content?.['application/json']?.schema;
  return {
    ...rest,
    request: {
      ...plain,
      url: {
        ...request.url,
        query: (request.url.query ?? []).map((q: any) => ({ ...q, value: valueOf('query', q.key, '') })),
        variable: (request.url.variable ?? []).map((v: any) => ({ ...v, value: valueOf('path', v.key, '') })),
      },
      header: isPublic ? headers : [{ key: 'X-Client-ID', value: '{{clientId}}' }, ...headers],
      ...(body ? { body: { ...request.body, mode: 'raw', raw: JSON.stringify(exampleOf(body, document), null, 2) } } : {}),
      ...(isPublic ? { auth: { type: 'noauth' } } : {}),
    },
  };
}

/** The schema's example; else its default, first enum value or the required fields, each alike; `<type>` for a bare value. */
function exampleOf(schema: any, document: Document, depth = 0): unknown {
  if (!schema || depth > 10) return null;
  if (schema.$ref) return exampleOf(document.components?.schemas?.[schema.$ref.split('/').at(-1)], document, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return exampleOf(choices.find((c: any) => c.type !== 'null') ?? choices[0], document, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: any) => exampleOf(part, document, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((key: string) => [key, exampleOf(schema.properties?.[key], document, depth + 1)]),
      );
    case 'array':
      return [exampleOf(schema.items, document, depth + 1)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return true;
    default:
      return `<${type ?? 'value'}>`;
  }
}
