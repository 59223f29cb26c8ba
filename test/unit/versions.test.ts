import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineChange, type JsonObject, type VersionChange } from '@/server/versions/change';
import { changelogMarkdown } from '@/server/versions/changelog';
import { CHANGES, FIRST_VERSION, LATEST_VERSION, VERSIONS } from '@/server/versions/registry';
import { openApiDocumentFor, renderResponse, upgradeRequest, withSource } from '@/server/versions/render';

// The rules a version change lives by (server/versions/change.ts): adding a version is adding its modules, and
// this file fails until each module's shapes are stated and hold. The changelog /docs shows is made from them.

const CHANGES_DIR = path.resolve('server/versions/changes');
const CHANGELOG = changelogMarkdown(3);

/** The changelog's entry of a version: from its heading to the next. */
function changelogEntry(version: string): string | undefined {
  const start = CHANGELOG.search(new RegExp(`^### ${version}\\b`, 'm'));
  if (start < 0) return undefined;
  const next = CHANGELOG.slice(start + 1).search(/\n### /);
  return CHANGELOG.slice(start, next < 0 ? undefined : start + 1 + next);
}

describe('the versions', () => {
  it('are dates, oldest first, the first one first and the latest last', () => {
    expect(VERSIONS[0]).toBe(FIRST_VERSION);
    expect(VERSIONS.at(-1)).toBe(LATEST_VERSION);
    expect([...VERSIONS].sort()).toEqual(VERSIONS);
    expect(new Set(VERSIONS).size).toBe(VERSIONS.length);
    for (const v of VERSIONS) expect(new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10), v).toBe(v);
  });

  it('list every module of server/versions/changes/, named <version>-<name>.ts, in the order of their versions', () => {
    const files = readdirSync(CHANGES_DIR).filter((f) => f.endsWith('.ts'));
    expect(CHANGES.map((c) => `${c.version}-${c.name}.ts`).sort()).toEqual(files.sort());
    expect(CHANGES.map((c) => c.version)).toEqual([...CHANGES.map((c) => c.version)].sort());
    expect(new Set(CHANGES.map((c) => c.name)).size).toBe(CHANGES.length);
    expect(CHANGES.every((c) => c.version > FIRST_VERSION)).toBe(true);
  });

  it.each(VERSIONS.map((v) => [v]))('%s has its entry in the changelog, with each of its changes and how to migrate', (version) => {
    const entry = changelogEntry(version);
    expect(entry, `changelog: no "### ${version}"`).toBeDefined();
    for (const change of CHANGES.filter((c) => c.version === version)) {
      expect(entry).toContain(`\`${change.name}\`: **${change.title}** ${change.description}`);
      expect(entry).toContain(`*Migrating*: ${change.migration}`);
      for (const example of change.examples) expect(entry).toContain(JSON.stringify(example.after));
    }
  });

  it('lists the versions newest first, the latest marked', () => {
    const headings = [...CHANGELOG.matchAll(/^### (\S+)( \(latest\))?$/gm)].map((m) => m[1] + (m[2] ?? ''));
    expect(headings).toEqual([...VERSIONS].reverse().map((v) => (v === LATEST_VERSION ? `${v} (latest)` : v)));
  });
});

describe.each(CHANGES.map((c) => [`${c.version} ${c.name}`, c] as [string, VersionChange]))('the change %s', (_, change) => {
  it('says what changed and how to migrate', () => {
    for (const text of [change.title, change.description, change.migration]) expect(text.length).toBeGreaterThan(20);
  });

  it('has an example of every shape it maps', () => {
    for (const kind of Object.keys(change.resources ?? {})) {
      expect(
        change.examples.some((e) => 'resource' in e && e.resource === kind),
        `${change.name}: maps "${kind}" resources, with no example of one`,
      ).toBe(true);
    }
    for (const operation of Object.keys(change.requests ?? {})) {
      expect(
        change.examples.some((e) => 'request' in e && e.request === operation),
        `${change.name}: maps ${operation} requests, with no example of one`,
      ).toBe(true);
    }
    expect(change.examples.length).toBeGreaterThan(0);
  });

  it('maps each example as stated: a resource down from its version, a request up to it', () => {
    for (const example of change.examples) {
      if ('resource' in example) {
        const down = change.resources?.[example.resource];
        expect(down, `${change.name}: an example of "${example.resource}", which it does not map`).toBeDefined();
        expect(down!(structuredClone(example.after), { source: example.source })).toEqual(example.before);
      } else {
        const up = change.requests?.[example.request];
        expect(up, `${change.name}: an example of ${example.request}, which it does not map`).toBeDefined();
        expect(up!(structuredClone(example.before))).toEqual(example.after);
      }
    }
  });
});

describe('rendering', () => {
  const stored = {
    envelope: {
      id: 'evt',
      object: 'event',
      created: 1,
      livemode: false,
      type: 'order.picked_up',
      data: { object: { id: 'ord', object: 'order', status: 'picked_up', metadata: { object: 'event' }, status_history: [1, 2] } },
    },
  };
  const latest = () =>
    withSource(
      {
        id: 'evt',
        object: 'event',
        api_version: LATEST_VERSION,
        created: 1,
        livemode: false,
        type: 'order.picked_up',
        data: {
          object: { id: 'ord', object: 'order', status: 'picked_up', metadata: { object: 'event' } },
          previous_attributes: { status: 'x' },
        },
      },
      stored,
    );

  it('leaves an answer in the latest version as it is', () => {
    const event = latest();
    expect(renderResponse(event, LATEST_VERSION)).toBe(event);
  });

  it('renders resources inside lists and catalog entries, never partner data that looks like one (metadata)', () => {
    const list = { object: 'list', data: [latest(), { object: 'event_type', example: latest() }], has_more: false };
    const old = renderResponse(list, FIRST_VERSION) as unknown as { data: [JsonObject, { example: JsonObject }] };
    expect(old.data[0]).toEqual(stored.envelope);
    expect(old.data[1].example).toEqual(stored.envelope);
    // The input is not changed: the latest rendering of the same objects is still there.
    expect(list.data[0]).toMatchObject({ api_version: LATEST_VERSION });
  });

  it('stamps an event with the version it is rendered in', () => {
    for (const version of VERSIONS.filter((v) => v !== FIRST_VERSION)) {
      expect((renderResponse(latest(), version) as JsonObject).api_version).toBe(version);
    }
  });

  it('composes request changes oldest first, and only those after the version', () => {
    const body = { a: 1 };
    expect(upgradeRequest('anyOperation', body, LATEST_VERSION)).toBe(body);
    expect(upgradeRequest('createWebhook', 'not an object', FIRST_VERSION)).toBe('not an object');
  });
});

describe('composition, over made-up versions A < B < C', () => {
  // B renamed a request field `name` to `title` and a quote's `fee_cents` to `fee`; C nested `title` in `label`
  // and added `currency` to quotes. Each change written as its own module would be.
  const b1 = defineChange({
    version: '2030-02-01',
    name: 'title',
    title: 'The field once called name is called title.',
    description: 'Renamed in requests and responses alike.',
    migration: 'Send title instead of name.',
    requests: { createThing: ({ name, ...rest }) => ({ ...rest, title: name }) },
    resources: { quote: ({ fee, ...rest }) => ({ ...rest, fee_cents: fee }) },
    openapi: (doc) => void (doc.info.description = `${doc.info.description ?? ''} -B`),
    examples: [],
  });
  const c1 = defineChange({
    version: '2030-03-01',
    name: 'label',
    title: 'The title is nested in a label object.',
    description: 'Nested, so labels can grow.',
    migration: 'Send label.title.',
    requests: { createThing: ({ title, ...rest }) => ({ ...rest, label: { title } }) },
    resources: { quote: ({ currency: _, ...rest }) => rest },
    openapi: (doc) => void (doc.info.description = `${doc.info.description ?? ''} -C`),
    examples: [],
  });
  const all = [b1, c1];
  const quote = { object: 'quote', id: 'q', fee: 629, currency: 'USD' };

  it('takes a request up through every change since its version, oldest first', () => {
    expect(upgradeRequest('createThing', { name: 'n', x: 1 }, '2030-01-01', all)).toEqual({ x: 1, label: { title: 'n' } });
    expect(upgradeRequest('createThing', { title: 't' }, '2030-02-01', all)).toEqual({ label: { title: 't' } });
    expect(upgradeRequest('createThing', { label: { title: 't' } }, '2030-03-01', all)).toEqual({ label: { title: 't' } });
    expect(upgradeRequest('otherThing', { name: 'n' }, '2030-01-01', all)).toEqual({ name: 'n' });
  });

  it('takes a resource down through every change since the version, newest first, in lists too', () => {
    expect(renderResponse(quote, '2030-03-01', all)).toBe(quote);
    expect(renderResponse(quote, '2030-02-01', all)).toEqual({ object: 'quote', id: 'q', fee: 629 });
    expect(renderResponse({ object: 'list', data: [quote], has_more: false }, '2030-01-01', all)).toEqual({
      object: 'list',
      data: [{ object: 'quote', id: 'q', fee_cents: 629 }],
      has_more: false,
    });
  });

  it('takes the OpenAPI document down newest first, and names the version', () => {
    const latest = { info: { version: '2030-03-01', description: 'D' } };
    const oldest = openApiDocumentFor(latest, '2030-01-01', all);
    expect(oldest.info).toEqual({ version: '2030-01-01', description: 'D -C -B' });
    expect(latest.info.description).toBe('D');
  });
});
