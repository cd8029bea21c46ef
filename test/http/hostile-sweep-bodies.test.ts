import { defineSweep } from './hostile-sweep.ts';

defineSweep('bodies');
