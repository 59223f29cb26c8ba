import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Guide, Renderer } from '@/server/http/docs-site';
import { changelogMarkdown } from '@/server/versions/changelog';

const ROOT = process.cwd();
const GUIDES_DIR = path.join(ROOT, 'docs/guides');

/**
 * The partner guides, in the order /docs shows them: docs/guides/<slug>.md. A file in the folder that is
 * not listed, or a listed one that is missing, stops start-up (a guide nobody can find is a guide nobody reads).
 */
export const GUIDE_ORDER = [
  'quick-start',
  'authentication',
  'conventions',
  'errors',
  'idempotency',
  'rate-limits',
  'quotes',
  'orders',
  'events',
  'sandbox',
  'webhook-subscriptions',
  'webhooks',
  'replay',
  'failure-notices',
  'technical-contacts',
  'access-and-go-live',
  'versions',
] as const;

// How an included sample file is labelled and highlighted, by its extension; the order samples are shown in.
const LANGUAGES: [extension: string, name: string, fence: string][] = [
  ['.mjs', 'Node.js', 'js'],
  ['.js', 'Node.js', 'js'],
  ['.py', 'Python', 'python'],
  ['.php', 'PHP', 'php'],
  ['.go', 'Go', 'go'],
  ['.rb', 'Ruby', 'ruby'],
];

/**
 * Reads the guides, filling in their two directives, so nothing in them is a copy of something else:
 * `<!-- include: docs/some-folder/ -->` shows every file of that folder as a code block (a sample added there
 * appears in the guide), and `<!-- changelog -->` the changelog made from the versions registry.
 */
export function loadGuides(dir = GUIDES_DIR): Guide[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.md'));
  const unlisted = files.filter((f) => !(GUIDE_ORDER as readonly string[]).includes(f.slice(0, -3)));
  if (unlisted.length > 0) throw new Error(`docs/guides: ${unlisted.join(', ')} not listed in GUIDE_ORDER (server/boot/docs.ts)`);
  return GUIDE_ORDER.map((slug) => {
    const source = readFileSync(path.join(dir, `${slug}.md`), 'utf8');
    const title = /^# (.+)$/m.exec(source)?.[1];
    if (!title) throw new Error(`docs/guides/${slug}.md: no "# Title" heading`);
    const markdown = source
      .replace(/^<!-- include: (\S+) -->$/gm, (_, folder: string) => samples(folder))
      .replace(/^<!-- changelog -->$/gm, () => changelogMarkdown(3).trimEnd());
    return { slug, title, markdown };
  });
}

function samples(folder: string): string {
  const dir = path.join(ROOT, folder);
  if (!statSync(dir).isDirectory()) throw new Error(`docs/guides: include of ${folder}, which is not a folder`);
  const rank = (file: string) => {
    const i = LANGUAGES.findIndex(([extension]) => file.endsWith(extension));
    return i < 0 ? LANGUAGES.length : i;
  };
  const files = readdirSync(dir)
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return files
    .map((file) => {
      const [, name, fence] = LANGUAGES[rank(file)] ?? ['', path.extname(file).slice(1), path.extname(file).slice(1)];
      const code = readFileSync(path.join(dir, file), 'utf8').trimEnd();
      // A fence longer than any run of backticks in the file, so the file cannot end it.
      const ticks = '`'.repeat(Math.max(3, ...[...code.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      return `**${name}** (\`${path.posix.join(folder, file)}\`):\n\n${ticks}${fence}\n${code}\n${ticks}`;
    })
    .join('\n\n');
}

/**
 * Scalar's standalone browser bundle (one file, its styles inside) from the @scalar/api-reference package:
 * resolved at start, so a missing package stops start-up, and read on the first request for it.
 */
export function scalarRenderer(): Renderer {
  // The package exports no path to its browser build: reach it from its main entry (dist/index.js).
  const main = createRequire(import.meta.url).resolve('@scalar/api-reference');
  const packageDir = path.resolve(path.dirname(main), '..');
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const file = path.join(packageDir, 'dist/browser/standalone.js');
  statSync(file);
  return { version, read: () => readFile(file) };
}
