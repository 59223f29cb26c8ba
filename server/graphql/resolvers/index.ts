import type { ClassType } from 'type-graphql';
import { DeliveryResolver } from './deliveries';
import { EventResolver } from './events';
import { MetricsResolver } from './metrics';
import { OrderResolver } from './orders';
import { ReplayResolver } from './replays';
import { ViewerResolver } from './viewer';

// Every resolver of the operator API, one line each.
export const RESOLVERS: [ClassType, ...ClassType[]] = [
  ViewerResolver,
  DeliveryResolver,
  EventResolver,
  OrderResolver,
  ReplayResolver,
  MetricsResolver,
];
