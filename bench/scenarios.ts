import { ordersScenario, overheadScenario, quotesScenario } from './api';
import { burstsScenario, deliveryScenario } from './delivery';
import { floodScenario } from './flood';
import { growthScenario } from './growth';
import { operatorQueriesScenario } from './operator-queries';
import { replayScenario } from './replay';
import type { Scenario } from './scenario';

/** Every scenario, in the order `npm run bench` runs them. Add new ones here. */
export const scenarios: Scenario[] = [
  overheadScenario,
  quotesScenario,
  ordersScenario,
  deliveryScenario,
  burstsScenario,
  replayScenario,
  operatorQueriesScenario,
  floodScenario,
  growthScenario,
];
