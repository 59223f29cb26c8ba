import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface LocalCa {
  dir: string;
  /** Path of the CA certificate: what a client trusts (NODE_EXTRA_CA_CERTS). */
  caCert: string;
  /** A server certificate for localhost, receiver.test, 127.0.0.1 and ::1, signed by the CA. */
  serverCert: string;
  serverKey: string;
}

/**
 * A certificate authority of its own made with openssl (kept in `dir`, made once), for real HTTPS
 * webhook receivers on loopback: the tests' receivers and `npm run receiver`.
 */
export function ensureLocalCa(dir: string, opts: { name: string; days: number }): LocalCa {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const f = (name: string) => path.join(dir, name);
  if (!existsSync(f('server.crt'))) {
    const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    const days = String(opts.days);
    run(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      days,
      '-subj',
      `/CN=${opts.name}`,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.crt'),
    );
    run(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-keyout',
      f('server.key'),
      '-out',
      f('server.csr'),
    );
    writeFileSync(
      f('server.ext'),
      'subjectAltName=DNS:localhost,DNS:receiver.test,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
    );
    run(
      'x509',
      '-req',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      days,
      '-extfile',
      f('server.ext'),
      '-out',
      f('server.crt'),
    );
  }
  return { dir, caCert: f('ca.crt'), serverCert: readFileSync(f('server.crt'), 'utf8'), serverKey: readFileSync(f('server.key'), 'utf8') };
}
