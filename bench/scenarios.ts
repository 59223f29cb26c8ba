import { deliveryScenario } from './delivery';
import { floodScenario } from './flood';
import { quotesScenario } from './quotes';
import { replayScenario } from './replay';
import type { Scenario } from './scenario';

/** Every scenario, in the order `npm run bench` runs them. Add new ones here. */
export const scenarios: Scenario[] = [quotesScenario, deliveryScenario, replayScenario, floodScenario];
