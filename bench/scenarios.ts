import { deliveryScenario } from './delivery';
import { floodScenario } from './flood';
import { operatorQueriesScenario } from './operator-queries';
import { quotesScenario } from './quotes';
import type { Scenario } from './scenario';

/** Every scenario, in the order `npm run bench` runs them. Add new ones here. */
export const scenarios: Scenario[] = [quotesScenario, deliveryScenario, floodScenario, operatorQueriesScenario];
