// Readers of single environment variables: each parses one value or throws ConfigError with a
// message that names the variable and what it takes.
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import { parseKey } from '../crypto/secret-box.ts';
import { type PriceTable, parsePriceTable } from '../messaging/pricing.ts';

/** A configuration value the service cannot start with; its message names the variable. */
export class ConfigError extends Error {}

/** An integer variable within [min, max]; unset or empty: the fallback. */
export function int(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}

/** A true/false variable (1/0, yes/no, on/off too); unset or empty: the fallback. */
export function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** An absolute URL variable, without its trailing slash; unset or empty: the fallback. */
export function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
}

/** Account ids are UUIDs (the database column's type): an id of another shape is refused up front. */
export function uuid(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw)) {
    throw new ConfigError(
      `${name} must be a UUID such as 01937c1e-0000-7000-8000-000000000001 (account ids are UUIDs), got "${raw}"`,
    );
  }
  return raw.toLowerCase();
}

/** A 32-byte key (64 hex digits or base64), or undefined when unset. */
export function key32(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const key = parseKey(raw);
  if (!key) {
    throw new ConfigError(
      `${name} must be 32 bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`), got ${raw.length} characters`,
    );
  }
  return key;
}

/** DATABASE_URL, when set, must be a postgres:// (or postgresql://) URL. */
export function databaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DATABASE_URL;
  if (!raw) return undefined;
  let ok = false;
  try {
    ok = ['postgres:', 'postgresql:'].includes(new URL(raw).protocol);
  } catch {}
  if (!ok) {
    throw new ConfigError(
      'DATABASE_URL must be a URL such as postgres://user:password@host:5432/database (got a value that is not one)',
    );
  }
  return raw;
}

/** DATABASE_POOLER: `none`, or `transaction` when DATABASE_URL leads to a transaction-pooling PgBouncer. */
export function pooler(env: NodeJS.ProcessEnv): 'none' | 'transaction' {
  const raw = env.DATABASE_POOLER || 'none';
  if (raw !== 'none' && raw !== 'transaction') {
    throw new ConfigError(`DATABASE_POOLER must be none or transaction, got "${raw}"`);
  }
  return raw;
}

/**
 * REDIS_KEY_PREFIX (default `sparrow`): deployments that share one Redis give each its own, or
 * they share their request budgets (a client address's, e.g. 127.0.0.1's token requests).
 */
export function redisKeyPrefix(env: NodeJS.ProcessEnv): string {
  const value = env.REDIS_KEY_PREFIX ?? '';
  if (value === '') return 'sparrow';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(value))
    throw new ConfigError(
      `REDIS_KEY_PREFIX must be 1-64 letters, digits, '_', '.', ':' or '-', got ${JSON.stringify(value.slice(0, 80))}`,
    );
  return value;
}

/** DELIVERY_GUARANTEE: at-least-once (the default) or at-most-once. */
export function deliveryGuarantee(env: NodeJS.ProcessEnv): Config['deliveryGuarantee'] {
  const raw = env.DELIVERY_GUARANTEE || 'at-least-once';
  if (raw !== 'at-least-once' && raw !== 'at-most-once') {
    throw new ConfigError(`DELIVERY_GUARANTEE must be at-least-once or at-most-once, got "${raw}"`);
  }
  return raw;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY: true/false, or proxy addresses, CIDRs and the names loopback, linklocal, uniquelocal. */
export function trustProxy(env: NodeJS.ProcessEnv): boolean | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '') return false;
  if (/^(true|false|yes|no|on|off)$/i.test(raw)) return bool(env, 'TRUST_PROXY', false);
  for (const entry of raw.split(',').map((e) => e.trim())) {
    const [address, bits, extra] = entry.split('/');
    const valid =
      PROXY_NAMES.has(entry) ||
      (extra === undefined && isIP(address) !== 0 && (bits === undefined || /^\d{1,3}$/.test(bits)));
    if (!valid) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false or proxy addresses/CIDRs separated by commas, got "${raw}"`,
      );
    }
  }
  return raw;
}

/** PRICE_TABLE over the built-in rates. */
export function prices(env: NodeJS.ProcessEnv): PriceTable {
  try {
    return parsePriceTable(env.PRICE_TABLE);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}
