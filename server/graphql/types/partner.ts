import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Environment } from '@/server/context';
import type { GoLiveStatus } from '@/server/partners/present';
import { ENVIRONMENTS } from './environment';

export const GO_LIVE_STATUSES = {
  not_requested: 'not_requested',
  requested: 'requested',
  approved: 'approved',
  rejected: 'rejected',
} as const satisfies Record<GoLiveStatus, GoLiveStatus>;
registerEnumType(GO_LIVE_STATUSES, { name: 'GoLiveStatus', description: 'Production credentials need approved.' });

@ObjectType('GoLiveEvidence', { description: 'What a checklist item found, with its console page when it has one.' })
export class GoLiveEvidence {
  @Field(() => String)
  label!: string;

  @Field(() => String, { nullable: true, description: 'A console path: /orders/<id>, /deliveries?subscriptionId=...' })
  href!: string | null;
}

@ObjectType('GoLiveChecklistItem', { description: "One check of the partner's own sandbox record." })
export class GoLiveChecklistItem {
  @Field(() => ID, { name: 'id', description: 'The check, stable across reviews: quotes, orders_delivered_and_cancelled, webhook_test...' })
  key!: string;

  @Field(() => String)
  label!: string;

  @Field(() => Boolean)
  passed!: boolean;

  @Field(() => String)
  detail!: string;

  @Field(() => [GoLiveEvidence])
  evidence!: GoLiveEvidence[];
}

@ObjectType('GoLiveDecision', { description: 'One move of the go-live review.' })
export class GoLiveDecisionEntry {
  @Field(() => ID)
  id!: string;

  @Field(() => GO_LIVE_STATUSES)
  from!: GoLiveStatus;

  @Field(() => GO_LIVE_STATUSES)
  to!: GoLiveStatus;

  @Field(() => String, { nullable: true })
  note!: string | null;

  @Field(() => String, { description: '"partner:<client id>" or "operator:<e-mail>".' })
  actor!: string;

  @Field(() => Date)
  at!: Date;
}

@ObjectType('GoLiveHandover', { description: 'The production credential issued on approval and the address its one-time link went to.' })
export class GoLiveHandover {
  @Field(() => String)
  clientId!: string;

  @Field(() => String)
  email!: string;

  @Field(() => Date)
  expiresAt!: Date;
}

@ObjectType('GoLiveReview')
export class GoLiveReview {
  @Field(() => ID)
  partnerId!: string;

  @Field(() => GO_LIVE_STATUSES)
  status!: GoLiveStatus;

  @Field(() => String, { nullable: true, description: "The reviewer's note on the last decision." })
  note!: string | null;

  @Field(() => GoLiveHandover, { nullable: true, description: 'Only in the answer to approveGoLive with an e-mail.' })
  handover?: GoLiveHandover | null;
}

@ObjectType('RateLimit', { description: 'Requests per second per credential on the partner API.' })
export class RateLimit {
  @Field(() => ID)
  partnerId!: string;

  @Field(() => Int, { nullable: true, description: "The partner's own limit; null: the platform default." })
  override!: number | null;

  @Field(() => Int, { description: 'What each credential gets: the override, or the platform default.' })
  perSecond!: number;

  @Field(() => Int)
  burst!: number;
}

@ObjectType('Partner')
export class Partner {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => GoLiveReview)
  goLive!: GoLiveReview;

  @Field(() => RateLimit)
  rateLimit!: RateLimit;
}

@ObjectType('ApiVersionPin', { description: 'The API version one environment of a partner speaks: pinned at its first request.' })
export class ApiVersionPin {
  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD; null: the environment has made no request yet.' })
  version!: string | null;

  @Field(() => String, { description: 'The version its first request pins (its version, once pinned).' })
  firstRequestPins!: string;

  @Field(() => String, { nullable: true, description: 'The version the last upgrade left, while a rollback can return to it.' })
  previousVersion!: string | null;

  @Field(() => Date, { nullable: true })
  pinnedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'The last upgrade or rollback.' })
  changedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Until when a rollback is possible (72 h after the upgrade).' })
  rollbackUntil!: Date | null;
}

@ObjectType('Credential', {
  description: "A partner's API credential. The key is shown once, when issued; neither it nor its hash is readable here.",
})
export class Credential {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => String, { description: 'Sent as X-Client-ID.' })
  clientId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => String, { description: "The key's last four characters, to tell keys apart." })
  keyLast4!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;
}

@ObjectType('IssuedCredential')
export class IssuedCredential {
  @Field(() => ID)
  partnerId!: string;

  @Field(() => String)
  clientId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => String, {
    nullable: true,
    description: 'The API key: shown in this answer only (just its SHA-256 is stored). Store it now. Null when handed over by e-mail.',
  })
  key!: string | null;

  @Field(() => String, { nullable: true, description: 'Where the one-time link to the key went, when issued with an e-mail.' })
  handedOverTo!: string | null;
}

@ObjectType('CredentialHandover', { description: "A credential's latest one-time link to its key: never the link or the key." })
export class CredentialHandover {
  @Field(() => String)
  email!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the partner opened the link and saw the key.' })
  usedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When a newer link or the revocation ended this one.' })
  endedAt!: Date | null;
}

@ObjectType('ResentHandover')
export class ResentHandover {
  @Field(() => String)
  clientId!: string;

  @Field(() => String)
  handedOverTo!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => Boolean, { description: 'The key had been shown, so the new link carries a new key; the old key stops working.' })
  keyReplaced!: boolean;
}

@ObjectType('RevokedCredential')
export class RevokedCredential {
  @Field(() => String)
  clientId!: string;

  @Field(() => Date, { description: 'Every service process refuses the key within a few seconds of this.' })
  revokedAt!: Date;
}

@ObjectType('AllowlistEntry', { description: 'An address range the partner API accepts the partner from (none: any address).' })
export class AllowlistEntry {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => String, { description: 'Normalised: 203.0.113.0/24, 2001:db8::/32; a bare address is /32 or /128.' })
  cidr!: string;

  @Field(() => String, { nullable: true })
  label!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('AllowlistEdit')
export class AllowlistEdit {
  @Field(() => ID)
  partnerId!: string;

  @Field(() => String, { description: 'As stored (normalised).' })
  cidr!: string;

  @Field(() => String, { nullable: true })
  label!: string | null;
}

export const SUBSCRIPTION_STATUSES = { enabled: 'enabled', disabled: 'disabled' } as const;
registerEnumType(SUBSCRIPTION_STATUSES, { name: 'WebhookSubscriptionStatus' });

@ObjectType('WebhookSubscription', { description: 'A partner endpoint. Its signing secrets are never readable here.' })
export class WebhookSubscription {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  partnerId!: string;

  @Field(() => ENVIRONMENTS)
  environment!: Environment;

  @Field(() => String)
  url!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => [String], { description: 'Event types delivered; empty: every type.' })
  eventFilters!: string[];

  @Field(() => String, { description: 'The API version its deliveries are rendered in (YYYY-MM-DD).' })
  apiVersion!: string;

  @Field(() => SUBSCRIPTION_STATUSES)
  status!: keyof typeof SUBSCRIPTION_STATUSES;

  @Field(() => String, {
    nullable: true,
    description: 'gone (the endpoint answered 410), too_many_failures, disabled_by_partner, disabled_by_operator.',
  })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'First failed attempt since the last success; null while it succeeds.' })
  failingSince!: Date | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('DeliverySuccessRate')
export class DeliverySuccessRate {
  @Field(() => Int, { description: 'Attempts started since `since`: scheduled, manual and replayed.' })
  attempts!: number;

  @Field(() => Int)
  succeeded!: number;

  @Field(() => Float, { nullable: true, description: 'succeeded / attempts; null without attempts.' })
  ratio!: number | null;

  @Field(() => Date, {
    description: "The window's start: the whole minute at or before now minus the window (the rollup counts whole minutes).",
  })
  since!: Date;
}
