/**
 * The console at 360 px wide, second half of the routes: no page scrolls sideways or has a
 * serious or critical axe-core violation (the first half: accessibility-narrow.test.ts).
 */
import { routeSuite, routesHalf } from './accessibility-support.ts';

routeSuite('the console at 360 px (axe-core, sideways overflow), routes 2 of 2', routesHalf(2), 360);
