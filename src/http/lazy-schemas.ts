import { createRequire } from 'node:module';

/*
 * Fastify compiles every route's validators (Ajv) and response serializers (fast-json-stringify)
 * when the app becomes ready: about 0.9 s of CPU for our ~200 routes, most of the time between
 * `npm start` and a ready service. The service defers each compilation to the route's first use
 * and then warms them all in the background, a few per event-loop turn; tests build the app with
 * eager compilation, so a schema that does not compile fails there at once.
 */

// Fastify's own compilers (its dependencies, in the versions it was released with).
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const AjvCompiler = fromFastify('@fastify/ajv-compiler') as () => ValidatorBuilder;
const SerializerSelector = fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerBuilder;

type RouteSchema = { schema: unknown; method?: string; url?: string; httpPart?: string; httpStatus?: string };
type Validate = ((data: unknown, ctx?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (data: unknown) => string;
type ValidatorBuilder = (external: unknown, opts: unknown) => (route: RouteSchema) => Validate;
type SerializerBuilder = (external: unknown, opts: unknown) => (route: RouteSchema) => Serialize;

/** Header names are case-insensitive: Fastify lower-cases a header schema's keys (as it does unless compilers are custom). */
function lowerCaseHeaders(schema: unknown): unknown {
  const s = schema as { properties?: Record<string, unknown>; required?: string[] };
  if (!s || typeof s !== 'object' || Object.getPrototypeOf(s) !== Object.prototype) return schema;
  return {
    ...s,
    ...(s.properties && {
      properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k.toLowerCase(), v])),
    }),
    ...(s.required && { required: s.required.map((k) => k.toLowerCase()) }),
  };
}

/** A schema controller whose compilers compile on first use; `warm()` compiles the rest soon after start. */
export function lazySchemaController() {
  const buildValidator = AjvCompiler();
  const buildSerializer = SerializerSelector();
  const pending: Array<() => void> = [];
  return {
    warm(onError: (err: Error) => void): void {
      const next = () => {
        const started = performance.now();
        while (pending.length && performance.now() - started < 5) {
          try {
            pending.shift()!();
          } catch (err) {
            onError(err as Error);
          }
        }
        if (pending.length) setImmediate(next);
      };
      setImmediate(next);
    },
    schemaController: {
      compilersFactory: {
        buildValidator: (external: unknown, opts: unknown) => {
          const compile = buildValidator(external, opts);
          return (route: RouteSchema): Validate => {
            const input =
              route.httpPart === 'headers' ? { ...route, schema: lowerCaseHeaders(route.schema) } : route;
            let fn: Validate | undefined;
            const get = () => (fn ??= compile(input));
            const lazy: Validate = (data, ctx) => {
              const f = get();
              const out = f.schemaEnv && ctx !== undefined ? f(data, ctx) : f(data);
              lazy.errors = f.errors;
              return out;
            };
            // Ajv validators take the parent object so they can coerce or default a root value:
            // marked so, Fastify passes it.
            lazy.schemaEnv = true;
            pending.push(get);
            return lazy;
          };
        },
        buildSerializer: (external: unknown, opts: unknown) => {
          const compile = buildSerializer(external, opts);
          return (route: RouteSchema): Serialize => {
            let fn: Serialize | undefined;
            const get = () => (fn ??= compile(route));
            pending.push(get);
            return (data) => get()(data);
          };
        },
      },
    },
  };
}
