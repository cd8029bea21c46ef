/**
 * The second half of the console's routes at desktop width: no serious or critical axe-core
 * violation (the first half is in accessibility.test.ts).
 */
import { routeSuite, routesHalf } from './accessibility-support.ts';

routeSuite('the console’s accessibility (axe-core), routes 2 of 2', routesHalf(2), 1280);
