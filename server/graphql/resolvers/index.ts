import type { ClassType } from 'type-graphql';
import { AccessRequestResolver } from './access-requests';
import { ApiVersionResolver } from './api-versions';
import { AuditLogResolver } from './audit-log';
import { DeliveryAttemptResolver, DeliveryResolver } from './deliveries';
import { EventResolver } from './events';
import { GoLiveResolver } from './go-live';
import { LookupResolver } from './lookup';
import { CredentialHandoverResolver } from './handovers';
import { MailResolver } from './mail';
import { MetricsResolver } from './metrics';
import { WebhookNoticeResolver } from './notices';
import { OperatorsResolver } from './operators';
import { OrderResolver } from './orders';
import { PartnerAdminResolver } from './partner-admin';
import { PARTNER_NAME_RESOLVERS } from './partner-names';
import { PartnerResolver } from './partners';
import { ReplayResolver } from './replays';
import { ViewerResolver } from './viewer';
import { WebhookSubscriptionResolver } from './webhook-subscriptions';

// Every resolver of the operator API, one line each.
export const RESOLVERS: [ClassType, ...ClassType[]] = [
  ViewerResolver,
  LookupResolver,
  MetricsResolver,
  PartnerResolver,
  PartnerAdminResolver,
  ApiVersionResolver,
  GoLiveResolver,
  WebhookSubscriptionResolver,
  WebhookNoticeResolver,
  OrderResolver,
  EventResolver,
  DeliveryResolver,
  DeliveryAttemptResolver,
  ReplayResolver,
  OperatorsResolver,
  AuditLogResolver,
  AccessRequestResolver,
  CredentialHandoverResolver,
  MailResolver,
  ...PARTNER_NAME_RESOLVERS,
];
