import type { ClassType } from 'type-graphql';
import { AuditLogResolver } from './audit-log';
import { OperatorsResolver } from './operators';
import { ViewerResolver } from './viewer';

// Every resolver of the operator API, one line each.
export const RESOLVERS: [ClassType, ...ClassType[]] = [ViewerResolver, OperatorsResolver, AuditLogResolver];
