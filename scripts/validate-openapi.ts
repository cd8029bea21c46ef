/** Builds the API app (no database connection is made) and validates its OpenAPI document. */
import { compileErrors, validate } from '@readme/openapi-parser';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { buildApiApp } from '../src/http/app.ts';

const config = { ...loadConfig({}), redisUrl: undefined };
const db = createPool('postgres://unused@127.0.0.1:1/unused', 1);
const ctx = createContext(config, db);
const app = await buildApiApp(ctx);
const doc = app.swagger() as Record<string, unknown>;
const result = await validate(structuredClone(doc) as never);
const paths = Object.keys((doc.paths as object) ?? {}).length;
await app.close();
await ctx.close();
await db.end();
if (!result.valid) {
  console.error(compileErrors(result));
  process.exit(1);
}
console.log(`OpenAPI ${String(doc.openapi)} document is valid (${paths} paths)`);
