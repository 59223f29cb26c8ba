import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { USER } from './database';

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

export function osUserId(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
}

/**
 * As root, Postgres runs as the `postgres` OS user, which must be able to enter its data directory
 * and the one holding its programs, and every parent of both. A project cloned under /root or a
 * `mktemp -d` directory (mode 0700) otherwise fails deep inside initdb (spawn EACCES); say why here.
 */
export function assertEnterableByOthers(dir: string, what: string): void {
  for (let d = dir; ; d = path.dirname(d)) {
    const st = statSync(d, { throwIfNoEntry: false });
    if (st && (st.mode & 0o001) === 0) {
      throw new Error(
        `the embedded Postgres runs as the OS user "postgres" (you are root), which cannot enter ${d} ` +
          `(mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}) on the way to ${what} under ${dir}. ` +
          `Run \`chmod o+x ${d}\`, run as a user other than root, or set DATABASE_URL to a Postgres server of your own.`,
      );
    }
    if (d === path.dirname(d)) return;
  }
}
