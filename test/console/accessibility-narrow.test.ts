/**
 * The console at 360 px wide, first half of the routes: no page scrolls sideways or has a serious
 * or critical axe-core violation (the other half: accessibility-narrow-2.test.ts).
 */
import { routeSuite, routesHalf } from './accessibility-support.ts';

routeSuite('the console at 360 px (axe-core, sideways overflow), routes 1 of 2', routesHalf(1), 360);
