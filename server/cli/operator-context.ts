import { contextFor, type Ctx, type Deps, type OperatorActor } from '../context';

/** Someone with shell access to the service acts as an admin; the audit log names them "cli". */
export function cliContext(deps: Deps, name = 'cli'): Ctx<OperatorActor> {
  return contextFor(deps, { kind: 'operator', operatorId: name, role: 'admin' }, `cli_${Date.now()}`);
}
