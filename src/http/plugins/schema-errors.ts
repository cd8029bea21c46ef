import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/** One Ajv error as Fastify hands it over (plus `propertyName`, which Ajv sets for propertyNames). */
type SchemaError = FastifySchemaValidationError & { propertyName?: string };

/** `body/filters/0/tag` → `body.filters[0].tag`: the field as a client spells it. */
function fieldName(dataVar: string, instancePath: string, property?: string): string {
  let out = dataVar;
  const parts = instancePath.split('/').slice(1);
  if (property !== undefined) parts.push(property);
  for (const raw of parts) {
    const p = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(p) ? `[${p}]` : `.${p}`;
  }
  return out;
}

const list = (values: unknown[]) =>
  values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/**
 * The message of one failure, naming the field: an enum, or a union of constants (TypeBox literals,
 * which Ajv reports as one `const` error per branch), says the allowed values once; an unknown key
 * of a closed object (propertyNames) says which keys are allowed.
 */
function describe(dataVar: string, errors: SchemaError[]): string[] {
  const out: string[] = [];
  const anyOfConsts = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword === 'const') {
      const branch = /^(.*\/anyOf)\/\d+\/const$/.exec(e.schemaPath);
      if (branch) {
        const key = `${e.instancePath}|${branch[1]}`;
        anyOfConsts.set(key, [...(anyOfConsts.get(key) ?? []), e.params.allowedValue]);
        continue;
      }
    }
    if (e.keyword === 'anyOf') {
      const consts = anyOfConsts.get(`${e.instancePath}|${e.schemaPath}`);
      const field = fieldName(dataVar, e.instancePath);
      out.push(consts ? `${field} must be one of: ${list(consts)}.` : `${field} ${e.message}.`);
      continue;
    }
    if (e.keyword === 'propertyNames') continue;
    if (e.keyword === 'enum' && e.propertyName !== undefined) {
      const field = fieldName(dataVar, e.instancePath, e.propertyName);
      const allowed = (e.params.allowedValues as unknown[]).map(String).join(', ');
      out.push(`${field} is not a known property (allowed: ${allowed}).`);
      continue;
    }
    const field = fieldName(dataVar, e.instancePath);
    if (e.keyword === 'enum')
      out.push(`${field} must be one of: ${list(e.params.allowedValues as unknown[])}.`);
    else if (e.keyword === 'const') out.push(`${field} must be ${JSON.stringify(e.params.allowedValue)}.`);
    else if (e.keyword === 'required')
      out.push(`${fieldName(dataVar, e.instancePath, String(e.params.missingProperty))} is required.`);
    else out.push(`${field} ${e.message}.`);
  }
  // A const error without its anyOf (never expected): still say something.
  return out.length > 0 ? [...new Set(out)] : [`${dataVar} is invalid.`];
}

/**
 * Fastify's schemaErrorFormatter: one message naming each field that failed (and, for enums,
 * the allowed values), e.g. `body.eventTypes[0] must be one of: "message-received", …`.
 */
export function formatSchemaErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  return new Error(describe(dataVar, errors as SchemaError[]).join(' '));
}
