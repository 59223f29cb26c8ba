import { mkdtemp, rm, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedHandle } from '../../db/embedded/start';
import { runMigrations } from '../../db/migrate';
import { startBoss } from '../../jobs/boss';
import { createLogger } from '../../server/logger';
import { createTestCa } from './test-ca';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database on the test server with CREATEDB rights, used to create one database per test file. */
    pgAdminUrl: string;
    /** Migrated template that every test file's database is copied from. */
    pgTemplate: string;
    /** Directory of the run's test certificate authority (test/support/test-ca.ts). */
    testCaDir: string;
    /** Prefix of every database this run creates, so teardown on a shared server drops exactly those. */
    pgPrefix: string;
  }
}

/**
 * One Postgres per test run: DATABASE_URL when set, otherwise an embedded one in a temporary
 * directory, stopped (and removed) afterwards even when tests fail. Migrations and pg-boss's
 * schema are applied once to a template; each test file then gets `CREATE DATABASE … TEMPLATE`.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedHandle | undefined;
  let dir: string | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    dir = await mkdtemp(path.join(tmpdir(), 'pdp-test-'));
    await chmod(dir, 0o755);
    embedded = await startEmbeddedPostgres({ dataDir: dir });
    adminUrl = embedded.url;
  }
  const prefix = `pdp_${Date.now().toString(36)}_${process.pid}_`;
  const template = `${prefix}template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${template}"`);
  const templateUrl = withDatabase(adminUrl, template);
  await runMigrations(templateUrl);
  const boss = await startBoss({ databaseUrl: templateUrl, log: createLogger('silent'), supervise: false });
  await boss.stop({ graceful: false, wait: true });

  // Webhook receivers in tests are real HTTPS servers whose certificates this CA signs; the service
  // trusts it the way production trusts public CAs: through NODE_EXTRA_CA_CERTS, read at process start.
  const ca = createTestCa(path.join(tmpdir(), `pdp-test-ca-${process.pid}`));
  process.env.NODE_EXTRA_CA_CERTS = ca.caCert;
  project.provide('testCaDir', ca.dir);

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  project.provide('pgPrefix', prefix);

  return async () => {
    if (embedded) {
      await admin.end();
      await embedded.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
      return;
    }
    // A shared server (DATABASE_URL): drop what this run created.
    const dbs = await admin<{ datname: string }[]>`select datname from pg_database where starts_with(datname, ${prefix})`;
    for (const { datname } of dbs) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
    await admin.end();
  };
}

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}
