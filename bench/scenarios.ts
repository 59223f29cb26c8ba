import { ordersScenario, overheadScenario, quotesScenario } from './api';
import { burstsScenario, deliveryScenario } from './delivery';
import { floodScenario } from './flood';
import { growthScenario } from './growth';
import { operatorQueriesScenario } from './operator-queries';
import { replayScenario } from './replay';
import type { Scenario } from './scenario';
import { soakScenario } from './soak';

/** Every scenario, in the order `npm run bench` runs them. Add new ones here. */
export const scenarios: Scenario[] = [
  overheadScenario,
  quotesScenario,
  ordersScenario,
  deliveryScenario,
  burstsScenario,
  replayScenario,
  soakScenario,
  operatorQueriesScenario,
  floodScenario,
  growthScenario,
];
