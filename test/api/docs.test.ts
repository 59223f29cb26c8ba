import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDE_ORDER, loadGuides } from '@/server/boot/docs';
import { LATEST_VERSION, VERSIONS } from '@/server/versions/registry';
import { startTestService, type TestService } from '../support/service';

// /docs as a browser and a partner's tools fetch it, from the lean web tier (no console): the page and its
// policy, the reference documents of every version (the OpenAPI document with the guides), the guides as
// Markdown, and the renderer's assets with their cache headers. e2e/docs.spec.ts renders it in Chromium.

let svc: TestService;
const tmp = mkdtempSync(path.join(tmpdir(), 'pdp-guides-'));

beforeAll(async () => {
  svc = await startTestService({ CONSOLE: 'off', WORKERS: 'off' });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const get = (route: string, headers: Record<string, string> = {}) => fetch(`${svc.url}${route}`, { headers });

type Reference = { info: { version: string; description: string } } & Record<string, unknown>;

describe('GET /docs', () => {
  it('is the page that loads the renderer and the init script from here only, under a policy without inline scripts', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    // Every script is a file of ours, or the JSON configuration (a data block, which runs nothing).
    for (const attributes of scripts)
      expect(attributes).toMatch(/^ src="\/docs\/assets\/[\w.-]+\.js"$|^ id="docs-config" type="application\/json"$/);
    expect(html).not.toMatch(/https?:\/\//);
    const config = JSON.parse(/<script id="docs-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!);
    expect(config.sources.map((s: { slug: string }) => s.slug)).toEqual([...VERSIONS].reverse());
    expect(config.sources.find((s: { default: boolean }) => s.default).slug).toBe(LATEST_VERSION);
    expect(config).toMatchObject({ withDefaultFonts: false, telemetry: false });
  });

  it('opens on the version ?version= names, and refuses an unknown one as /partner/openapi.json does', async () => {
    const html = await (await get(`/docs?version=${VERSIONS[0]}`)).text();
    const config = JSON.parse(/<script id="docs-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!);
    expect(config.sources.find((s: { default: boolean }) => s.default).slug).toBe(VERSIONS[0]);
    const unknown = await get('/docs?version=2001-01-01');
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.code).toBe('api_version_unknown');
    expect((await get('/partner/openapi.json?version=2001-01-01')).status).toBe(400);
  });

  it('answers what it does not serve with the JSON envelope', async () => {
    const missing = await get('/docs/nothing-here');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: 'route_not_found', request_id: expect.stringMatching(/^req_/) });
    const post = await fetch(`${svc.url}/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('GET /docs/reference.json', () => {
  it.each(VERSIONS.map((v) => [v]))(
    'of %s is that version of /partner/openapi.json, with every guide in its description',
    async (version) => {
      const reference = (await (await get(`/docs/reference.json?version=${version}`)).json()) as Reference;
      const document = (await (await get(`/partner/openapi.json?version=${version}`)).json()) as Reference;
      const { description, ...info } = reference.info;
      expect({ ...reference, info }).toEqual({ ...document, info: { ...document.info, description: undefined } });
      expect(description.startsWith(`# Overview\n\n${document.info.description}`)).toBe(true);
      for (const guide of loadGuides()) expect(description).toContain(`\n# ${guide.title}\n`);
    },
  );

  it('links the guides to each other on the page, not to their files', async () => {
    const { info } = (await (await get('/docs/reference.json')).json()) as Reference;
    expect(info.description).not.toMatch(/\]\([a-z-]+\.md[)#]/);
    expect(info.description).toContain(`[Receiving webhooks](#${LATEST_VERSION}/description/receiving-webhooks)`);
    expect(info.description).toContain(`[changelog](#${LATEST_VERSION}/description/changelog)`);
  });
});

describe('the guides', () => {
  it('are every file of docs/guides/, each served as Markdown at /docs/guides/<name>.md', async () => {
    const files = readdirSync(path.resolve('docs/guides')).map((f) => f.replace(/\.md$/, ''));
    expect([...GUIDE_ORDER].sort()).toEqual(files.sort());
    for (const guide of loadGuides()) {
      const res = await get(`/docs/guides/${guide.slug}.md`);
      expect(res.status, guide.slug).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await res.text()).toBe(guide.markdown);
    }
  });

  it('show every verification sample of docs/webhook-verification/ as it is, in the webhooks guide', async () => {
    const guide = await (await get('/docs/guides/webhooks.md')).text();
    const samples = readdirSync(path.resolve('docs/webhook-verification'));
    expect(samples).toEqual(expect.arrayContaining(['verify.mjs', 'verify.py']));
    for (const file of samples) {
      expect(guide).toContain(`(\`docs/webhook-verification/${file}\`)`);
      expect(guide).toContain(readFileSync(path.resolve('docs/webhook-verification', file), 'utf8').trimEnd());
    }
    expect(guide).not.toContain('<!-- include');
  });

  it('show the changelog made from the versions registry', async () => {
    const guide = await (await get('/docs/guides/versions.md')).text();
    for (const version of VERSIONS) expect(guide).toMatch(new RegExp(`^### ${version}`, 'm'));
    expect(guide).not.toContain('<!-- changelog -->');
  });

  it('refuse to load with a file in the folder that GUIDE_ORDER does not list', () => {
    for (const slug of GUIDE_ORDER) writeFileSync(path.join(tmp, `${slug}.md`), `# ${slug}\n`);
    expect(loadGuides(tmp)).toHaveLength(GUIDE_ORDER.length);
    writeFileSync(path.join(tmp, 'stray.md'), '# Stray\n');
    expect(() => loadGuides(tmp)).toThrow(/stray\.md not listed in GUIDE_ORDER/);
  });
});

describe('the renderer', () => {
  it('is served from node_modules under a versioned name, cached for a year, gzipped when asked', async () => {
    const html = await (await get('/docs')).text();
    const [scalar, init] = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    const pkg = JSON.parse(readFileSync(path.resolve('node_modules/@scalar/api-reference/package.json'), 'utf8')) as { version: string };
    expect(scalar).toBe(`/docs/assets/scalar-${pkg.version}.js`);
    const plain = await get(scalar!, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const bytes = Buffer.from(await plain.arrayBuffer());
    expect(bytes.equals(readFileSync(path.resolve('node_modules/@scalar/api-reference/dist/browser/standalone.js')))).toBe(true);
    // fetch() would unzip it: a raw request shows what goes on the wire.
    const { request } = await import('node:http');
    const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      request(`${svc.url}${scalar}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(zipped.encoding).toBe('gzip');
    expect(gunzipSync(zipped.body).equals(bytes)).toBe(true);
    console.log(`[docs] renderer bundle: ${bytes.length} bytes, ${zipped.body.length} gzipped`);
    const script = await get(init!);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toContain('Scalar.createApiReference');
  });
});
