/** Prints the error-code registry as a Markdown table (pasted into the README). */
import { ERRORS } from '../src/errors.ts';

console.log('| code | HTTP | meaning |\n|---|---|---|');
for (const [code, e] of Object.entries(ERRORS)) console.log(`| \`${code}\` | ${e.status} | ${e.message} |`);
