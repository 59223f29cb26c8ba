import type { ClassType } from 'type-graphql';
import { AuditLogResolver } from './audit-log';
import { OperatorsResolver } from './operators';
import { PartnerAdminResolver } from './partner-admin';
import { PartnerResolver } from './partners';
import { ViewerResolver } from './viewer';
import { WebhookSubscriptionResolver } from './webhook-subscriptions';

// Every resolver of the operator API, one line each.
export const RESOLVERS: [ClassType, ...ClassType[]] = [
  ViewerResolver,
  PartnerResolver,
  PartnerAdminResolver,
  WebhookSubscriptionResolver,
  OperatorsResolver,
  AuditLogResolver,
];
