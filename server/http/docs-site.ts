import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { LATEST_VERSION, VERSIONS } from '../versions/registry';
import { parseVersion } from '../versions/requested';
import { serveWebRequest } from './serve-request';

/** A partner guide: a Markdown file of docs/guides/ with its includes filled in (server/boot/guides.ts). */
export interface Guide {
  /** The file's name without `.md`: quick-start. */
  slug: string;
  /** Its first heading. */
  title: string;
  markdown: string;
}

/** The reference's renderer: Scalar's standalone browser bundle, from its npm package, read on first ask. */
export interface Renderer {
  version: string;
  read(): Promise<Buffer>;
}

interface Options {
  guides: readonly Guide[];
  renderer: Renderer;
  /** The OpenAPI document of a version: the one GET /partner/openapi.json answers. */
  openApiDocument(version: string): object;
  log: Logger;
}

export type DocsHandler = (request: Request) => Promise<Response>;

/** Everything under /docs: the reference page, its documents, the guides as Markdown, and the renderer's assets. */
export function isDocsPath(pathname: string): boolean {
  return pathname === '/docs' || pathname.startsWith('/docs/');
}

// The page runs two scripts, both ours and served from here, and fetches only from here: no inline script, no
// other origin. Styles keep 'unsafe-inline': the renderer (Vue) writes style attributes, which cannot run code.
const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// Scalar reads its configuration from the page's JSON block (a data block: no script runs from it).
const INIT_SCRIPT = `Scalar.createApiReference('#docs', JSON.parse(document.getElementById('docs-config').textContent));\n`;
const INIT_NAME = `docs-${createHash('sha256').update(INIT_SCRIPT).digest('hex').slice(0, 12)}.js`;
// Asset names carry their version or content hash, so a browser keeps them until they change.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * /docs: the partner reference, rendered in the browser by Scalar from the same OpenAPI document and version
 * selector as GET /partner/openapi.json, with the guides (docs/guides/*.md) before it and a selector for every
 * version. Served by the front door with or without the console; nothing is fetched from another origin.
 */
export function docsHandler({ guides, renderer, openApiDocument, log }: Options): DocsHandler {
  const scalarName = `scalar-${renderer.version}.js`;
  const references = new Map<string, string>();
  const reference = (version: string) => {
    let text = references.get(version);
    if (text === undefined) references.set(version, (text = JSON.stringify(referenceDocument(openApiDocument(version), version, guides))));
    return text;
  };
  let bundle: Promise<{ plain: Buffer; gzipped: Buffer }> | undefined;
  // Zipped once, on the first ask (about 0.3 s for 4.3 MB), then kept: 1.3 MB on the wire instead of 4.3.
  const scalar = () =>
    (bundle ??= renderer
      .read()
      .then(async (plain) => ({ plain, gzipped: await promisify(gzip)(plain, { level: 9 }) }))
      .catch((error: unknown) => {
        bundle = undefined;
        throw error;
      }));

  return (request) =>
    serveWebRequest(request, log, 'docs request', async (record) => {
      // Pages and assets fetched by every visit: not worth a log line each.
      record.log = false;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        throw new AppError('method_not_allowed', 'method_not_allowed', 'This path accepts GET, HEAD.', { headers: { allow: 'GET, HEAD' } });
      }
      const url = new URL(request.url);
      const path = url.pathname.replace(/\/+$/, '') || '/';
      const asked = url.searchParams.get('version');
      const version = asked === null ? LATEST_VERSION : parseVersion(asked, 'version');
      if (path === '/docs') return page(scalarName, version);
      if (path === '/docs/reference.json') {
        return new Response(reference(version), {
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'public, max-age=300',
            'x-service-version': version,
          },
        });
      }
      const guide = /^\/docs\/guides\/([a-z0-9-]+)\.md$/.exec(path);
      const found = guide && guides.find((g) => g.slug === guide[1]);
      if (found) return text(found.markdown, 'text/markdown; charset=utf-8', 'public, max-age=300');
      if (path === `/docs/assets/${INIT_NAME}`) return text(INIT_SCRIPT, 'text/javascript; charset=utf-8', IMMUTABLE);
      if (path === `/docs/assets/${scalarName}`) {
        const { plain, gzipped } = await scalar();
        const zipped = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
        const bytes = zipped ? gzipped : plain;
        return new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length), {
          headers: {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': IMMUTABLE,
            vary: 'accept-encoding',
            ...(zipped ? { 'content-encoding': 'gzip' } : {}),
          },
        });
      }
      throw new AppError('not_found', 'route_not_found', `Nothing at ${path}: the reference and guides are at /docs.`);
    });
}

function text(body: string, contentType: string, cacheControl: string): Response {
  return new Response(body, { headers: { 'content-type': contentType, 'cache-control': cacheControl } });
}

function page(scalarName: string, selected: string): Response {
  const config = {
    // One document per version, newest first: Scalar's document selector is the version switch.
    sources: [...VERSIONS].reverse().map((version) => ({
      title: version === LATEST_VERSION ? `${version} (latest)` : version,
      slug: version,
      url: `/docs/reference.json?version=${version}`,
      default: version === selected,
      agent: { disabled: true },
    })),
    // Offline: no fonts, telemetry or assistant from Scalar's servers (the policy would refuse them anyway).
    withDefaultFonts: false,
    telemetry: false,
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    // Tags open as a reader opens them (Scalar's default). All open, the first render cost 2.5 times the main
    // thread's time: 34 s of task time against 13.5 s, in Chromium on this 2-core machine at load 14 (all open
    // without the guides: 11.4 s). Measured with CDP's Performance.getMetrics, one run each.
    // The guides ride in info.description: the document to download is /partner/openapi.json, which the guides link.
    documentDownloadType: 'none',
    metaData: { title: 'Partner Delivery API: reference and guides' },
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner Delivery API: reference and guides</title>
</head>
<body>
<noscript>The reference needs JavaScript. Without it: the OpenAPI document is <a href="/partner/openapi.json">/partner/openapi.json</a>, and the guides are Markdown, starting at <a href="/docs/guides/quick-start.md">/docs/guides/quick-start.md</a>.</noscript>
<div id="docs"></div>
<script id="docs-config" type="application/json">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>
<script src="/docs/assets/${scalarName}"></script>
<script src="/docs/assets/${INIT_NAME}"></script>
</body>
</html>
`;
  return new Response(html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // The page names the running service's versions: asked again each visit (the assets stay cached).
      'cache-control': 'no-cache',
      'content-security-policy': POLICY,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  });
}

/**
 * The version's OpenAPI document with the guides after its own description, where Scalar renders Markdown and
 * lists each guide and its sections in its sidebar (a description that starts with a heading puts them at the
 * top level). Links between guide files (`orders.md`, `versions.md#changelog`) become links to their headings on
 * the page, whose ids Scalar prefixes with the document's slug, our version.
 */
export function referenceDocument(document: object, version: string, guides: readonly Guide[]): object {
  const { info } = document as { info: { description?: string } };
  const anchors = new Map(guides.map((g) => [g.slug, headingSlug(g.title)]));
  const link = (slug: string, fragment: string | undefined) => `(#${version}/description/${fragment ?? anchors.get(slug)})`;
  const intro =
    `This reference is version ${version}: its OpenAPI document is [/partner/openapi.json?version=${version}](/partner/openapi.json?version=${version}). ` +
    'The guides below are Markdown files of the repository (docs/guides/), also served as they are: [/docs/guides/quick-start.md](/docs/guides/quick-start.md).';
  const description = [
    '# Overview',
    info.description ?? '',
    intro,
    ...guides.map((g) =>
      g.markdown
        .replace(/\]\(([a-z0-9-]+)\.md(?:#([a-z0-9-]+))?\)/g, (whole, slug: string, fragment?: string) =>
          anchors.has(slug) ? `]${link(slug, fragment)}` : whole,
        )
        .replace(/\]\(#([a-z0-9-]+)\)/g, (_, fragment: string) => `]${link('', fragment)}`),
    ),
  ].join('\n\n');
  return { ...document, info: { ...info, description } };
}

/** GitHub's heading slug (what Scalar gives a description heading): lower case, punctuation dropped, spaces to dashes. */
function headingSlug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
