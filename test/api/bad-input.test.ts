import { request } from 'node:http';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newOrder, newQuote, type Reply } from '../support/partner-api';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  // Hundreds of requests from one key: lift the rate limit, it is not what this file tests.
  svc = await startTestService({ WORKERS: 'off', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '1000000' });
  partner = await createTestPartner(svc);
});

interface ErrorEnvelope {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    errors?: { param: string; code: string; message: string }[];
    request_id: string;
  };
}

const postQuote = (body: string | Uint8Array | undefined, headers = partner.headers) =>
  call('POST', '/partner/quotes', { baseUrl: svc.url, headers }, body);

/** What every answer must be, however bad the input: never a 5xx, always JSON, errors in the envelope. */
function expectWellFormed(reply: Reply, context = ''): void {
  const why = `${context} → ${reply.status} ${reply.text.slice(0, 300)}`;
  expect(reply.status, why).toBeLessThan(500);
  expect(reply.headers.get('content-type'), why).toMatch(/^application\/json/);
  expect(reply.body, why).toBeDefined();
  const requestId = reply.headers.get('x-request-id');
  expect(requestId, why).toMatch(/^req_/);
  if (reply.status >= 400) {
    const { error } = reply.body as ErrorEnvelope;
    expect(error, why).toMatchObject({
      type: expect.any(String),
      code: expect.any(String),
      message: expect.any(String),
      request_id: requestId,
    });
    if (error.code.startsWith('parameter_')) {
      // A field error names the field; only an error about the body as a whole (an array, a string) has none.
      const params = error.errors?.map((e) => e.param);
      if (error.param === undefined) expect(params, why).toEqual(['']);
      else expect(params, why).toContain(error.param);
    }
  }
}

const json = (value: unknown) => JSON.stringify(value);
const P = NYC.pickup;
const D = NYC.dropoff;

interface Case {
  name: string;
  body: string | Uint8Array | undefined;
  /** Replaces application/json; null sends no Content-Type at all. */
  contentType?: string | null;
  extraHeaders?: Record<string, string>;
  status: number;
  code?: string;
  param?: string;
}

const cases: Case[] = [
  // Not JSON at all.
  { name: 'malformed JSON', body: '{"pickup":', status: 400, code: 'invalid_json' },
  { name: 'single quotes', body: "{'pickup': 1}", status: 400, code: 'invalid_json' },
  { name: 'unquoted keys', body: '{pickup: {lat: 1, lng: 2}}', status: 400, code: 'invalid_json' },
  { name: 'trailing comma', body: `{"pickup":${json(P)},"dropoff":${json(D)},}`, status: 400, code: 'invalid_json' },
  { name: 'NaN literal', body: `{"pickup":{"lat":NaN,"lng":1},"dropoff":${json(D)}}`, status: 400, code: 'invalid_json' },
  { name: 'Infinity literal', body: `{"pickup":{"lat":Infinity,"lng":1},"dropoff":${json(D)}}`, status: 400, code: 'invalid_json' },
  { name: 'two JSON documents', body: `${json(NYC)}${json(NYC)}`, status: 400, code: 'invalid_json' },
  { name: 'whitespace only', body: '   \n\t ', status: 400, code: 'invalid_json' },
  { name: 'a NUL byte', body: '\u0000', status: 400, code: 'invalid_json' },
  // Empty or not an object.
  { name: 'empty body', body: '', status: 400, code: 'parameter_missing', param: 'pickup' },
  { name: 'no body at all', body: undefined, status: 400, code: 'parameter_missing', param: 'pickup' },
  { name: 'JSON array', body: '[]', status: 400, code: 'parameter_invalid_type' },
  { name: 'JSON array of the request', body: json([NYC]), status: 400, code: 'parameter_invalid_type' },
  { name: 'JSON string', body: '"pickup"', status: 400, code: 'parameter_invalid_type' },
  { name: 'JSON number', body: '42', status: 400, code: 'parameter_invalid_type' },
  { name: 'JSON true', body: 'true', status: 400, code: 'parameter_invalid_type' },
  { name: 'JSON null', body: 'null', status: 400, code: 'parameter_invalid_type' },
  // Missing fields.
  { name: 'empty object', body: '{}', status: 400, code: 'parameter_missing', param: 'pickup' },
  { name: 'no dropoff', body: json({ pickup: P }), status: 400, code: 'parameter_missing', param: 'dropoff' },
  { name: 'no pickup.lng', body: json({ pickup: { lat: 1 }, dropoff: D }), status: 400, code: 'parameter_missing', param: 'pickup.lng' },
  { name: 'no dropoff.lat', body: json({ pickup: P, dropoff: { lng: 1 } }), status: 400, code: 'parameter_missing', param: 'dropoff.lat' },
  { name: 'empty pickup', body: json({ pickup: {}, dropoff: D }), status: 400, code: 'parameter_missing', param: 'pickup.lat' },
  // Wrong types.
  {
    name: 'pickup as a string',
    body: json({ pickup: '40.7,-73.9', dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup',
  },
  {
    name: 'pickup as an array',
    body: json({ pickup: [40.7, -73.9], dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup',
  },
  { name: 'pickup null', body: json({ pickup: null, dropoff: D }), status: 400, code: 'parameter_invalid_type', param: 'pickup' },
  {
    name: 'lat as a numeric string',
    body: json({ pickup: { lat: '40.7', lng: -73.9 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  {
    name: 'lat "NaN"',
    body: json({ pickup: { lat: 'NaN', lng: 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  {
    name: 'lng "Infinity"',
    body: json({ pickup: P, dropoff: { lat: 1, lng: 'Infinity' } }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'dropoff.lng',
  },
  {
    name: 'lat "-Infinity"',
    body: json({ pickup: P, dropoff: { lat: '-Infinity', lng: 1 } }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'dropoff.lat',
  },
  {
    name: 'lat true',
    body: json({ pickup: { lat: true, lng: 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  {
    name: 'lat null',
    body: json({ pickup: { lat: null, lng: 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  {
    name: 'lat an object',
    body: json({ pickup: { lat: { value: 1 }, lng: 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  {
    name: 'lat an array',
    body: json({ pickup: { lat: [40.7], lng: 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  // Numbers JSON can spell but the API cannot use.
  { name: '1e400 (parses to Infinity)', body: `{"pickup":{"lat":1e400,"lng":1},"dropoff":${json(D)}}`, status: 400, param: 'pickup.lat' },
  {
    name: '-1e400 (parses to -Infinity)',
    body: `{"pickup":${json(P)},"dropoff":{"lat":1,"lng":-1e400}}`,
    status: 400,
    param: 'dropoff.lng',
  },
  {
    name: '1e308',
    body: `{"pickup":{"lat":1e308,"lng":1},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_out_of_range',
    param: 'pickup.lat',
  },
  {
    name: 'a 40-digit integer',
    body: `{"pickup":{"lat":1${'0'.repeat(39)},"lng":1},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_out_of_range',
    param: 'pickup.lat',
  },
  { name: 'a 5000-digit fraction', body: `{"pickup":{"lat":40.${'7'.repeat(5000)},"lng":-73.9857},"dropoff":${json(D)}}`, status: 201 },
  { name: '1e-400 (underflows to 0)', body: `{"pickup":{"lat":1e-400,"lng":0},"dropoff":{"lat":0.01,"lng":0}}`, status: 201 },
  { name: '-0', body: `{"pickup":{"lat":-0,"lng":-0},"dropoff":{"lat":0.01,"lng":0}}`, status: 201 },
  // Range, and the exact edges.
  {
    name: 'lat 90.000001',
    body: json({ pickup: { lat: 90.000001, lng: 0 }, dropoff: D }),
    status: 400,
    code: 'parameter_out_of_range',
    param: 'pickup.lat',
  },
  {
    name: 'lat -90.000001',
    body: json({ pickup: P, dropoff: { lat: -90.000001, lng: 0 } }),
    status: 400,
    code: 'parameter_out_of_range',
    param: 'dropoff.lat',
  },
  {
    name: 'lng 180.000001',
    body: json({ pickup: { lat: 0, lng: 180.000001 }, dropoff: D }),
    status: 400,
    code: 'parameter_out_of_range',
    param: 'pickup.lng',
  },
  {
    name: 'lng -180.000001',
    body: json({ pickup: P, dropoff: { lat: 0, lng: -180.000001 } }),
    status: 400,
    code: 'parameter_out_of_range',
    param: 'dropoff.lng',
  },
  {
    name: 'lat 91, lng 181 (every error listed)',
    body: json({ pickup: { lat: 91, lng: 181 }, dropoff: D }),
    status: 400,
    code: 'parameter_out_of_range',
    param: 'pickup.lat',
  },
  { name: 'lat 90 (north pole)', body: json({ pickup: { lat: 90, lng: 0 }, dropoff: { lat: 89.95, lng: 0 } }), status: 201 },
  { name: 'lat -90 (south pole)', body: json({ pickup: { lat: -90, lng: 0 }, dropoff: { lat: -89.95, lng: 0 } }), status: 201 },
  { name: 'lng 180', body: json({ pickup: { lat: 0, lng: 180 }, dropoff: { lat: 0, lng: 179.95 } }), status: 201 },
  {
    name: 'lng -180 to 179.97 (across the antimeridian)',
    body: json({ pickup: { lat: 0, lng: -180 }, dropoff: { lat: 0, lng: 179.97 } }),
    status: 201,
  },
  {
    name: 'valid but far',
    body: json({ pickup: { lat: 90, lng: 0 }, dropoff: { lat: -90, lng: 0 } }),
    status: 422,
    code: 'distance_too_long',
  },
  // Extra fields.
  { name: 'an unknown top-level field', body: json({ ...NYC, tip: 5 }), status: 400, code: 'parameter_unknown', param: 'tip' },
  {
    name: 'an unknown nested field',
    body: json({ pickup: { ...P, alt: 10 }, dropoff: D }),
    status: 400,
    code: 'parameter_unknown',
    param: 'pickup.alt',
  },
  {
    name: 'a __proto__ key',
    body: `{"__proto__":{"admin":true},"pickup":${json(P)},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_unknown',
    param: '__proto__',
  },
  {
    name: 'a constructor key',
    body: json({ ...NYC, constructor: { prototype: {} } }),
    status: 400,
    code: 'parameter_unknown',
    param: 'constructor',
  },
  { name: 'an empty key', body: `{"":1,"pickup":${json(P)},"dropoff":${json(D)}}`, status: 400, code: 'parameter_unknown', param: '[""]' },
  {
    name: 'a key with a dot',
    body: json({ pickup: { ...P, 'lat.x': 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_unknown',
    param: 'pickup["lat.x"]',
  },
  { name: 'a unicode key', body: json({ ...NYC, größe: 1 }), status: 400, code: 'parameter_unknown', param: 'größe' },
  // Unicode and bytes.
  {
    name: 'unicode string as lat',
    body: json({ pickup: { lat: '四十', lng: 1 }, dropoff: D }),
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  // Text Postgres cannot store (U+0000, unpaired surrogates) is refused before it reaches a query.
  {
    name: 'escaped lone surrogate key',
    body: `{"\\ud800":1,"pickup":${json(P)},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_invalid',
    param: '\ud800',
  },
  {
    name: 'escaped NUL key',
    body: `{"\\u0000":1,"pickup":${json(P)},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_invalid',
    param: '\u0000',
  },
  {
    name: 'escaped NUL value',
    body: `{"pickup":{"lat":"4\\u00000","lng":1},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_invalid',
    param: 'pickup.lat',
  },
  {
    name: 'escaped lone low surrogate in a nested key',
    body: `{"pickup":{"lat":1,"lng":1,"\\uDC00x":1},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_invalid',
    param: 'pickup.\udc00x',
  },
  {
    name: 'an escaped surrogate pair is fine text',
    body: `{"pickup":${json(P)},"dropoff":${json(D)},"\\ud83d\\ude00":1}`,
    status: 400,
    code: 'parameter_unknown',
    param: '😀',
  },
  {
    name: 'an escaped backslash before u0000 is not a NUL',
    body: `{"pickup":${json(P)},"dropoff":${json(D)},"\\\\u0000":1}`,
    status: 400,
    code: 'parameter_unknown',
    param: '\\u0000',
  },
  { name: 'a UTF-8 byte-order mark', body: new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(json(NYC))]), status: 201 },
  { name: 'invalid UTF-8 (0xff 0xfe)', body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), status: 400, code: 'invalid_json' },
  {
    name: 'invalid UTF-8 inside a string',
    body: Buffer.concat([Buffer.from('{"pickup":"'), Buffer.from([0xc3, 0x28]), Buffer.from(`","dropoff":${json(D)}}`)]),
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'overlong UTF-8 encoding of "/"',
    body: Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'UTF-8 encoded surrogate',
    body: Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    status: 400,
    code: 'invalid_json',
  },
  { name: 'UTF-16 encoded JSON', body: Buffer.from(json(NYC), 'utf16le'), status: 400, code: 'invalid_json' },
  // Nesting.
  { name: 'a deeply nested array body', body: '['.repeat(30_000) + ']'.repeat(30_000), status: 400, code: 'parameter_invalid_type' },
  {
    name: 'a deeply nested object body',
    body: '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
    status: 400,
    code: 'parameter_missing',
    param: 'pickup',
  },
  {
    name: 'a deeply nested extra field',
    body: `{"pickup":${json(P)},"dropoff":${json(D)},"a":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    status: 400,
    code: 'parameter_unknown',
    param: 'a',
  },
  {
    name: 'deep nesting in a field',
    body: `{"pickup":{"lat":${'['.repeat(20_000)}${']'.repeat(20_000)},"lng":1},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  { name: 'unbalanced deep nesting', body: '['.repeat(60_000), status: 400, code: 'invalid_json' },
  // Duplicate keys: JSON.parse keeps the last one, so the request means what its last value says.
  { name: 'duplicate keys, valid last', body: `{"pickup":{"lat":"x","lng":1},"pickup":${json(P)},"dropoff":${json(D)}}`, status: 201 },
  {
    name: 'duplicate keys, invalid last',
    body: `{"pickup":${json(P)},"pickup":{"lat":"x","lng":1},"dropoff":${json(D)}}`,
    status: 400,
    code: 'parameter_invalid_type',
    param: 'pickup.lat',
  },
  { name: 'duplicate nested keys', body: `{"pickup":{"lat":999,"lat":${P.lat},"lng":${P.lng}},"dropoff":${json(D)}}`, status: 201 },
  // Content types.
  { name: 'text/plain', body: json(NYC), contentType: 'text/plain', status: 415, code: 'unsupported_media_type' },
  { name: 'no Content-Type', body: json(NYC), contentType: null, status: 415, code: 'unsupported_media_type' },
  { name: 'form-encoded', body: 'pickup=1', contentType: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type' },
  {
    name: 'multipart',
    body: '--x\r\n\r\n--x--',
    contentType: 'multipart/form-data; boundary=x',
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'application/jsonp', body: json(NYC), contentType: 'application/jsonp', status: 415, code: 'unsupported_media_type' },
  { name: 'text/json', body: json(NYC), contentType: 'text/json', status: 415, code: 'unsupported_media_type' },
  { name: 'application/json; charset=utf-8', body: json(NYC), contentType: 'application/json; charset=utf-8', status: 201 },
  { name: 'Application/JSON;Charset=UTF-8', body: json(NYC), contentType: 'Application/JSON;Charset=UTF-8', status: 201 },
  {
    name: 'a gzip Content-Encoding (not supported, read as bytes)',
    body: new Uint8Array([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]),
    extraHeaders: { 'content-encoding': 'gzip' },
    status: 400,
    code: 'invalid_json',
  },
];

function headersFor(c: Case): Record<string, string> {
  const { 'content-type': json, ...auth } = partner.headers;
  const contentType = c.contentType === undefined ? json : c.contentType;
  return { ...auth, ...(contentType === null ? {} : { 'content-type': contentType }), ...c.extraHeaders };
}

describe('POST /partner/quotes with bad input', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const reply = await postQuote(c.body, headersFor(c));
    expectWellFormed(reply, c.name);
    expect(reply.status, reply.text.slice(0, 300)).toBe(c.status);
    if (c.code) expect((reply.body as ErrorEnvelope).error.code).toBe(c.code);
    if (c.param) expect((reply.body as ErrorEnvelope).error.param).toBe(c.param);
    if (c.status === 201) expect(reply.body).toMatchObject({ object: 'quote' });
  });
});

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A POST whose body is written in chunks, with or without Content-Length (without it, Node sends
 * Transfer-Encoding: chunked). The server may answer and close before the whole body is sent; the
 * answer is what counts, so a write error after it is ignored.
 */
function postInChunks(headers: Record<string, string>, chunk: Buffer, count: number, contentLength: boolean): Promise<RawReply> {
  const { hostname, port } = new URL(svc.url);
  const total = chunk.length * count;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: hostname === 'localhost' ? '127.0.0.1' : hostname,
        port,
        method: 'POST',
        path: '/partner/quotes',
        agent: false,
        headers: { ...headers, ...(contentLength ? { 'content-length': String(total) } : {}) },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    let sent = 0;
    const writeMore = () => {
      while (sent < count && !answered) {
        sent++;
        if (!req.write(chunk)) return void req.once('drain', writeMore);
      }
      req.end();
    };
    writeMore();
  });
}

describe('body size', () => {
  const padded = (size: number) => {
    const text = JSON.stringify(NYC);
    return text.slice(0, -1) + ' '.repeat(size - text.length) + '}';
  };

  it('accepts a body of exactly 64 KiB and refuses one byte more with 413', async () => {
    const exact = await postQuote(padded(64 * 1024));
    expectWellFormed(exact, '64 KiB');
    expect(exact.status).toBe(201);
    const over = await postQuote(padded(64 * 1024 + 1));
    expectWellFormed(over, '64 KiB + 1');
    expect(over.status).toBe(413);
    expect((over.body as ErrorEnvelope).error.code).toBe('payload_too_large');
  });

  it.each([
    ['with Content-Length', true],
    ['chunked, without Content-Length', false],
  ])('refuses a 1 MiB body %s with 413', async (_name, contentLength) => {
    const reply = await postInChunks(partner.headers, Buffer.alloc(16 * 1024, ' '), 64, contentLength);
    expect(reply.status).toBe(413);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(reply.text) as ErrorEnvelope;
    expect(body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'payload_too_large',
      request_id: reply.headers['x-request-id'],
    });
    // The connection's fate does not matter; the service keeps answering.
    expect((await postQuote(JSON.stringify(NYC))).status).toBe(201);
  });

  it('a 1 MiB body with bad credentials is a 401: authentication comes first', async () => {
    const reply = await postInChunks({ ...partner.headers, 'x-api-key': 'sk_sandbox_nope' }, Buffer.alloc(16 * 1024, ' '), 64, false);
    expect(reply.status).toBe(401);
  });
});

describe('property: no input yields a 5xx or a non-JSON answer', () => {
  const NUM_RUNS = 150;

  it('any JSON value as the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ stringUnit: 'binary' }), async (value) => {
        const reply = await postQuote(JSON.stringify(value) ?? '');
        expectWellFormed(reply, JSON.stringify(value)?.slice(0, 200));
        expect([201, 400, 422]).toContain(reply.status);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('any JavaScript value serialised as the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything({ stringUnit: 'binary' }), async (value) => {
        let text: string;
        try {
          text = JSON.stringify(value) ?? '';
        } catch {
          return; // a value JSON cannot express is not a request anyone can send
        }
        const reply = await postQuote(text);
        expectWellFormed(reply, text.slice(0, 200));
        expect([201, 400, 422]).toContain(reply.status);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('objects shaped almost like the request', async () => {
    const anyValue = fc.oneof(fc.jsonValue({ stringUnit: 'binary' }), fc.double(), fc.string({ unit: 'binary' }));
    await fc.assert(
      fc.asyncProperty(
        fc.object({
          key: fc.constantFrom('pickup', 'dropoff', 'lat', 'lng', 'extra', '\u0000', '\ud800'),
          values: [anyValue],
          maxDepth: 3,
        }),
        async (value) => {
          const text = JSON.stringify(value);
          const reply = await postQuote(text);
          expectWellFormed(reply, text.slice(0, 200));
          expect([201, 400, 422]).toContain(reply.status);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('raw bytes and strings with a JSON content type', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }).map((s) => new TextEncoder().encode(s)),
      fc.jsonValue().map((v) => new TextEncoder().encode(JSON.stringify(v).slice(0, -1))),
    );
    await fc.assert(
      fc.asyncProperty(bytes, async (body) => {
        const reply = await postQuote(body);
        expectWellFormed(reply, Buffer.from(body).toString('hex').slice(0, 200));
        expect([201, 400, 422]).toContain(reply.status);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('property: coordinates', () => {
  const FIELDS = ['pickup.lat', 'pickup.lng', 'dropoff.lat', 'dropoff.lng'] as const;
  const LIMIT = { lat: 90, lng: 180 } as const;

  // Mostly numbers, near and at the edges, with the values JSON turns into something else.
  const coordinate = (limit: number) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.double({ min: -limit, max: limit, noNaN: true }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(limit, -limit, 0, -0, limit + 1e-9, -limit - 1e-9, limit + 1, Number.MAX_VALUE, Number.MIN_VALUE),
      },
      { weight: 2, arbitrary: fc.double() }, // NaN and ±Infinity serialise to null
      { weight: 1, arbitrary: fc.integer() },
      { weight: 1, arbitrary: fc.oneof(fc.string(), fc.boolean(), fc.constant(null), fc.constant([1]), fc.constant({})) },
      { weight: 1, arbitrary: fc.constant(undefined) }, // the field is left out
    );
  const point = fc.record({ lat: coordinate(LIMIT.lat), lng: coordinate(LIMIT.lng) });
  // Valid trips near New York, so that 201 shows up as often as 422.
  const nearby = fc.record({
    lat: fc.double({ min: 40.7, max: 40.8, noNaN: true }),
    lng: fc.double({ min: -74, max: -73.9, noNaN: true }),
  });

  it('valid coordinates give 201 or 422; every invalid field is listed with a 400', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(point, nearby), fc.oneof(point, nearby), async (pickup, dropoff) => {
        const text = JSON.stringify({ pickup, dropoff });
        const sent = JSON.parse(text) as Record<string, Record<string, unknown>>;
        const invalid = FIELDS.filter((field) => {
          const [where, axis] = field.split('.') as ['pickup' | 'dropoff', 'lat' | 'lng'];
          const v = sent[where]?.[axis];
          return typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > LIMIT[axis];
        });
        const reply = await postQuote(text);
        expectWellFormed(reply, text);
        if (invalid.length === 0) {
          expect([201, 422], text).toContain(reply.status);
        } else {
          expect(reply.status, text).toBe(400);
          const { error } = reply.body as ErrorEnvelope;
          expect(invalid, text).toContain(error.param);
          expect(error.errors?.map((e) => e.param).sort(), text).toEqual([...invalid].sort());
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('routing', () => {
  it.each([
    ['GET', '/partner'],
    ['GET', '/partner/'],
    ['GET', '/partner/nope'],
    ['POST', '/partner/quote'],
    ['GET', '/partner/quotes/01ARZ3NDEKTSV4RRFFQ69G5FAV/extra'],
    ['GET', '/partner/%ZZ'],
    ['DELETE', '/partner/does/not/exist'],
  ])('%s %s → 404 JSON', async (method, path) => {
    const reply = await call(method, path, partner, method === 'POST' ? JSON.stringify(NYC) : undefined);
    expectWellFormed(reply, `${method} ${path}`);
    expect(reply.status).toBe(404);
  });

  it.each([
    ['GET', '/partner/quotes', 'POST'],
    ['DELETE', '/partner/quotes', 'POST'],
    ['PUT', '/partner/quotes', 'POST'],
    ['PATCH', '/partner/quotes', 'POST'],
    ['OPTIONS', '/partner/quotes', 'POST'],
    ['POST', '/partner/quotes/01ARZ3NDEKTSV4RRFFQ69G5FAV', 'GET'],
    ['DELETE', '/partner/quotes/01ARZ3NDEKTSV4RRFFQ69G5FAV', 'GET'],
  ])('%s %s → 405 JSON with Allow: %s', async (method, path, allow) => {
    const reply = await call(method, path, partner, ['POST', 'PUT', 'PATCH'].includes(method) ? JSON.stringify(NYC) : undefined);
    expectWellFormed(reply, `${method} ${path}`);
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe(allow);
    expect((reply.body as ErrorEnvelope).error.code).toBe('method_not_allowed');
  });

  it.each([
    ['a very long id', 'A'.repeat(2000)],
    ['65 characters', 'A'.repeat(65)],
    ['a lower-case ULID', '01arz3ndektsv4rrffq69g5fav'],
    ['unicode', encodeURIComponent('日本語のID')],
    ['an emoji', '%F0%9F%98%80'],
    ['an encoded slash', '01ARZ3NDEKTSV4RRFFQ69G5FAV%2F..'],
    ['an encoded NUL', '%00'],
    ['a NUL inside an id', '01ARZ3NDEKTSV4RR%00FQ69G5FAV'],
    ['an encoded percent', '%25'],
    ['a broken escape', '%ZZ'],
    ['a truncated UTF-8 escape', '%E0%A4%A'],
    ['an encoded lone surrogate', '%ED%A0%80'],
    ['invalid UTF-8 bytes', '%FF%FE'],
    ['encoded whitespace', '%20%09%0A'],
    ['SQL', encodeURIComponent("' OR '1'='1' --")],
  ])('GET /partner/quotes/{%s} → 404 JSON', async (_name, id) => {
    const reply = await call('GET', `/partner/quotes/${id}`, partner);
    expectWellFormed(reply, id.slice(0, 100));
    expect(reply.status).toBe(404);
    expect((reply.body as ErrorEnvelope).error.code).toBe('resource_missing');
  });
});

// The guard sits in the partner-route wrapper, so every route has it; these routes would otherwise
// carry U+0000 or a lone surrogate to Postgres, which refuses them (a 500).
describe('text Postgres cannot store, on any partner route', () => {
  // The quote and order a bad request refers to are made as a partner makes them: through the typed client.
  const newQuoteId = () => newQuote(partner);

  it.each([
    ['pickup.instructions', (q: string) => `{"quote_id":"${q}","pickup":{"instructions":"ring\\u0000twice"}}`],
    ['metadata.note', (q: string) => `{"quote_id":"${q}","metadata":{"note":"\\ud800"}}`],
    ['metadata.k\u0000', (q: string) => `{"quote_id":"${q}","metadata":{"k\\u0000":"v"}}`],
  ])('POST /partner/orders with bad text in %j → 400 naming it', async (param, body) => {
    const reply = await call('POST', '/partner/orders', partner, body(await newQuoteId()));
    expectWellFormed(reply, param);
    expect(reply.status).toBe(400);
    expect((reply.body as ErrorEnvelope).error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('POST /partner/orders/{id}/cancel with a NUL in the reason → 400', async () => {
    const order = await newOrder(partner);
    const reply = await call('POST', `/partner/orders/${order.id}/cancel`, partner, '{"reason":"x\\u0000"}');
    expectWellFormed(reply, 'cancel');
    expect((reply.body as ErrorEnvelope).error).toMatchObject({ code: 'parameter_invalid', param: 'reason' });
  });

  it.each([
    ['/partner/orders/%00', '/partner/orders/%00'],
    ['/partner/events/%00', '/partner/events/%00'],
    ['/partner/orders/%ED%A0%80', '/partner/orders/%ED%A0%80'],
    ['/partner/events/{500 characters}', `/partner/events/${'E'.repeat(500)}`],
  ])('GET %s → 404', async (_name, path) => {
    const reply = await call('GET', path, partner);
    expectWellFormed(reply, path);
    expect(reply.status).toBe(404);
  });

  it.each(['/partner/events?type=%00', '/partner/events?order_id=a%00b', '/partner/orders?status=%ED%A0%80'])(
    'GET %s → 400',
    async (path) => {
      const reply = await call('GET', path, partner);
      expectWellFormed(reply, path);
      expect(reply.status).toBe(400);
    },
  );

  it('property: any body on POST /partner/orders is answered below 500, in JSON', async () => {
    const quoteId = await newQuoteId();
    const field = fc.constantFrom('external_id', 'pickup', 'dropoff', 'metadata', 'simulation', 'instructions', 'contact');
    const value = fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 });
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.oneof(field, fc.string({ unit: 'binary', maxLength: 5 })), value, { maxKeys: 4 }),
        async (extra) => {
          const text = JSON.stringify({ quote_id: quoteId, ...extra });
          const reply = await call('POST', '/partner/orders', partner, text);
          expectWellFormed(reply, text.slice(0, 200));
        },
      ),
      { numRuns: 100 },
    );
  });
});
