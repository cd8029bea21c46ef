/** Prints the event payload table (pasted into the README) from the one description in src/domain/events/docs.ts. */
import { EVENT_DOCS } from '../src/domain/events/docs.ts';

console.log('| event | when | `data` |\n|---|---|---|');
for (const [type, d] of Object.entries(EVENT_DOCS))
  console.log(`| \`${type}\` | ${d.summary} | ${d.data.replace(/\|/g, '\\|')} |`);
