import type { Ctx, OperatorActor } from '../context';
import type { Runtime } from '../runtime';

/** Someone with shell access to the service acts as an admin; the audit log names them "cli". */
export function cliContext(rt: Runtime, name = 'cli'): Ctx<OperatorActor> {
  return { actor: { kind: 'operator', operatorId: name, role: 'admin' }, requestId: `cli_${Date.now()}`, env: rt.env, log: rt.log, db: rt.db };
}
