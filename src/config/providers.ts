// PROVIDERS: provider instances beyond the built-in ones (docs/routing.md, "Provider instances").
// A JSON array, read and checked once at start; a bad entry stops the start with one line that
// names the entry and the setting, never a value (entries hold passwords and tokens).
import { BUILT_IN_PROVIDERS, isProviderName } from '../providers/names.ts';
import { ConfigError } from './read.ts';

/** An SMPP 3.4 carrier: one transceiver bind (the settings of SMPP_URL … SMPP_MAX_PER_SECOND). */
export interface SmppInstanceConfig {
  name: string;
  kind: 'smpp';
  /** smpp://host:port, or ssmpp:// for TLS. */
  url: string;
  systemId: string;
  password: string;
  windowSize: number;
  /** Most submit_sm a second on the bind (0: no cap). */
  maxPerSecond: number;
}

/** A Twilio-compatible REST account (the settings of TWILIO_*). */
export interface TwilioInstanceConfig {
  name: string;
  kind: 'twilio';
  baseUrl: string;
  accountSid: string;
  authToken: string;
  timeoutMs: number;
}

/** One named provider instance. */
export type ProviderInstanceConfig = SmppInstanceConfig | TwilioInstanceConfig;

const SETTINGS = {
  smpp: ['name', 'kind', 'url', 'systemId', 'password', 'windowSize', 'maxPerSecond'],
  twilio: ['name', 'kind', 'baseUrl', 'accountSid', 'authToken', 'timeoutMs'],
} as const;

const EXAMPLE =
  '[{"name":"carrier-b","kind":"smpp","url":"smpp://smsc.example.com:2775","systemId":"…","password":"…"}]';

/**
 * PROVIDERS: a JSON array of instances, each `{ "name", "kind": "smpp" | "twilio", …its kind's
 * settings }` (see SETTINGS). Unset or empty: none. Refused: invalid JSON, an unknown kind or
 * setting, a malformed, duplicate or built-in name, a missing or invalid setting.
 */
export function providerInstances(env: NodeJS.ProcessEnv): ProviderInstanceConfig[] {
  const raw = (env.PROVIDERS ?? '').trim();
  if (raw === '') return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    // The value is not echoed: it holds passwords and tokens.
    throw new ConfigError(
      `PROVIDERS must be a JSON array of provider instances, e.g. ${EXAMPLE} (it is not valid JSON)`,
    );
  }
  if (!Array.isArray(list)) {
    throw new ConfigError(`PROVIDERS must be a JSON array of provider instances, e.g. ${EXAMPLE}`);
  }
  const seen = new Set<string>();
  return list.map((entry: unknown, i) => {
    let where = `PROVIDERS[${i}]`;
    const bad = (what: string): never => {
      throw new ConfigError(`${where}: ${what}`);
    };
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) bad('must be an object');
    const e = entry as Record<string, unknown>;
    if (!isProviderName(e.name)) {
      bad('name must be 1 to 32 lowercase letters, digits, - or _, starting with a letter or digit');
    }
    const name = e.name as string;
    where += ` ("${name}")`;
    if ((BUILT_IN_PROVIDERS as readonly string[]).includes(name)) {
      bad(
        `the name ${name} is the built-in instance (${name === 'simulator' ? 'always there' : `configured by ${name.toUpperCase()}_*`}): give this one another name`,
      );
    }
    if (seen.has(name)) bad('the name is given to two instances');
    seen.add(name);
    if (e.kind !== 'smpp' && e.kind !== 'twilio') bad('kind must be smpp or twilio');
    const kind = e.kind as 'smpp' | 'twilio';
    const allowed: readonly string[] = SETTINGS[kind];
    for (const key of Object.keys(e)) {
      if (!allowed.includes(key))
        bad(`unknown setting "${key}" (a ${kind} instance takes ${allowed.join(', ')})`);
    }
    const text = (key: string, required: boolean, fallback = ''): string => {
      const v = e[key];
      if (v === undefined && !required) return fallback;
      if (typeof v !== 'string' || (required && v === '')) {
        bad(required ? `${key} is required: a non-empty string` : `${key} must be a string`);
      }
      return v as string;
    };
    const int = (key: string, fallback: number, min: number, max: number): number => {
      const v = e[key];
      if (v === undefined) return fallback;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
        bad(`${key} must be an integer between ${min} and ${max}`);
      }
      return v as number;
    };
    const address = (key: string, protocols: string[], required: boolean, fallback: string): string => {
      const v = text(key, required, fallback);
      let u: URL | undefined;
      try {
        u = new URL(v);
      } catch {}
      // The value is not echoed: a URL may carry credentials.
      if (!u || !protocols.includes(u.protocol) || !u.hostname) {
        return bad(`${key} must be a URL such as ${protocols[0]}//host${kind === 'smpp' ? ':2775' : ''}`);
      }
      // Credentials go in their own settings: the URL is shown in log lines (`bound to …`).
      if (u.username || u.password) bad(`${key} must not carry a user or password`);
      return v.replace(/\/$/, '');
    };
    if (kind === 'smpp') {
      return {
        name,
        kind,
        url: address('url', ['smpp:', 'ssmpp:'], true, ''),
        systemId: text('systemId', true),
        password: text('password', false),
        // The defaults of SMPP_WINDOW_SIZE and SMPP_MAX_PER_SECOND.
        windowSize: int('windowSize', 10, 1, 1000),
        maxPerSecond: int('maxPerSecond', 100, 0, 1_000_000),
      };
    }
    return {
      name,
      kind,
      baseUrl: address('baseUrl', ['https:', 'http:'], false, 'https://api.twilio.com'),
      accountSid: text('accountSid', true),
      // Required: without it no status callback of the instance can be authenticated.
      authToken: text('authToken', true),
      timeoutMs: int('timeoutMs', 10_000, 100, 120_000),
    };
  });
}
