import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { hashSecret, verifySecret } from '../src/domain/auth/secrets.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.externalsPort, 3001);
    assert.equal(c.rateLimitPerMinute, 600);
    assert.equal(c.webhooksAllowPrivate, false);
    assert.equal(c.quietHoursEnabled, true);
    assert.equal(c.dispatchLeaseSeconds, 30);
    assert.equal(c.dispatchInFlight, 256);
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.priceTable.US, 0.0079);
    assert.equal(c.redisKeyPrefix, 'sparrow');
  });

  it('reads PRICE_TABLE over the built-in rates', () => {
    const c = loadConfig({ PRICE_TABLE: '{"us": 0.02, "default": 0.1, "SE": 0.05}' });
    assert.equal(c.priceTable.US, 0.02);
    assert.equal(c.priceTable.SE, 0.05);
    assert.equal(c.priceTable.default, 0.1);
    assert.equal(c.priceTable.GB, 0.04);
  });

  it('refuses invalid values with a ConfigError that names the variable', () => {
    for (const env of [
      { PORT: 'eighty' },
      { PORT: '70000' },
      { RATE_LIMIT_PER_MINUTE: '0' },
      { WEBHOOKS_ALLOW_PRIVATE: 'maybe' },
      { PUBLIC_URL: 'not a url' },
      { PRICE_TABLE: '{"US": -1}' },
      { PRICE_TABLE: '[1]' },
      // Below one group of 64 a group could never get its slots.
      { DISPATCH_IN_FLIGHT: '63' },
      { DISPATCH_IN_FLIGHT: 'lots' },
      { SECRET_HASH_COST: '9' },
      { SECRET_HASH_COST: '17' },
      { REDIS_KEY_PREFIX: 'has space' },
      { REDIS_KEY_PREFIX: 'x'.repeat(65) },
      { REDIS_KEY_PREFIX: 'line\nbreak' },
    ]) {
      const name = Object.keys(env)[0];
      assert.throws(
        () => loadConfig(env),
        (err: Error) => err instanceof ConfigError && err.message.includes(name),
        JSON.stringify(env),
      );
    }
  });
});

describe('SECRET_HASH_COST', () => {
  it('hashes new secrets at 2^15 by default; a lower cost only outside production', async () => {
    assert.equal(loadConfig({}).secretHashCost, 15);
    assert.equal(loadConfig({ NODE_ENV: 'production' }).secretHashCost, 15);
    assert.equal(loadConfig({ NODE_ENV: 'production', SECRET_HASH_COST: '16' }).secretHashCost, 16);
    assert.equal(loadConfig({ SECRET_HASH_COST: '10' }).secretHashCost, 10);
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', SECRET_HASH_COST: '10' }),
      (err: Error) => err instanceof ConfigError && /SECRET_HASH_COST.*production/.test(err.message),
    );
    // The hash names its cost, and verifies at it whatever the configuration says now.
    const cheap = await hashSecret('a secret', 10);
    assert.match(cheap, /^scrypt\$1024\$8\$1\$/);
    assert.match(await hashSecret('a secret'), /^scrypt\$32768\$8\$1\$/);
    assert.equal(await verifySecret('a secret', cheap), true);
    assert.equal(await verifySecret('another', cheap), false);
  });
});

describe('SECRETS_KEY', () => {
  it('accepts 32 bytes as hex or base64, and refuses anything else with one clear line', () => {
    const bytes = Buffer.alloc(32, 7);
    assert.deepEqual(loadConfig({ SECRETS_KEY: bytes.toString('hex') }).secretsKey, bytes);
    assert.deepEqual(loadConfig({ SECRETS_KEY: bytes.toString('base64') }).secretsKey, bytes);
    assert.deepEqual(
      loadConfig({ SECRETS_KEY_PREVIOUS: bytes.toString('base64url') }).secretsKeyPrevious,
      bytes,
    );
    assert.equal(loadConfig({}).secretsKey, undefined);
    for (const bad of ['short', Buffer.alloc(16).toString('base64'), 'z'.repeat(64)]) {
      assert.throws(
        () => loadConfig({ SECRETS_KEY: bad }),
        (err: Error) =>
          err instanceof ConfigError &&
          /^SECRETS_KEY must be 32 bytes/.test(err.message) &&
          !err.message.includes('\n'),
      );
    }
  });
});

describe('hosted files (SHAREFILE_*, S3_*)', () => {
  it('defaults to 5 MiB files, 168 h links, a 100 MiB quota per account, and DATA_DIR storage', () => {
    const c = loadConfig({});
    assert.deepEqual(c.sharefile, {
      maxBytes: 5 * 1024 * 1024,
      ttlHours: 168,
      quotaBytes: 100 * 1024 * 1024,
    });
    assert.equal(c.s3, undefined);
    assert.equal(c.publicRateLimits.files, 6000);
  });

  it('reads an S3-compatible bucket, path-style by default when an endpoint is given', () => {
    const c = loadConfig({
      S3_BUCKET: 'media',
      S3_ENDPOINT: 'http://127.0.0.1:9000/',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    });
    assert.deepEqual(c.s3, {
      bucket: 'media',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9000',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
    });
    assert.equal(loadConfig({ S3_BUCKET: 'media' }).s3?.forcePathStyle, false);
  });

  it('refuses half an S3 configuration and out-of-range limits, naming the variable', () => {
    for (const [env, name] of [
      [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_BUCKET'],
      [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' }, 'S3_SECRET_ACCESS_KEY'],
      [{ S3_BUCKET: 'b', S3_ENDPOINT: 'nope' }, 'S3_ENDPOINT'],
      [{ SHAREFILE_MAX_BYTES: '0' }, 'SHAREFILE_MAX_BYTES'],
      [{ SHAREFILE_TTL_HOURS: '1.5' }, 'SHAREFILE_TTL_HOURS'],
      [{ SHAREFILE_QUOTA_BYTES: '-1' }, 'SHAREFILE_QUOTA_BYTES'],
    ] as const) {
      assert.throws(
        () => loadConfig(env),
        (err: Error) => err instanceof ConfigError && err.message.includes(name),
        JSON.stringify(env),
      );
    }
  });
});

describe('PROVIDERS (named provider instances)', () => {
  const SECRET = 'pw-Zq81';
  const smpp = (extra: Record<string, unknown> = {}) => ({
    name: 'carrier-b',
    kind: 'smpp',
    url: 'smpp://smsc-b.example.com:2775',
    systemId: 'sparrow-b',
    password: SECRET,
    ...extra,
  });
  const twilio = (extra: Record<string, unknown> = {}) => ({
    name: 'tw2',
    kind: 'twilio',
    accountSid: 'AC2',
    authToken: SECRET,
    ...extra,
  });
  const load = (list: unknown) =>
    loadConfig({ PROVIDERS: typeof list === 'string' ? list : JSON.stringify(list) });

  it('reads SMPP and Twilio instances with their kinds’ defaults, beside the built-in variables', () => {
    assert.deepEqual(loadConfig({}).providers, []);
    const c = loadConfig({
      SMPP_URL: 'smpp://a.example.com:2775',
      PROVIDERS: JSON.stringify([smpp({ windowSize: 50, maxPerSecond: 0 }), twilio()]),
    });
    assert.equal(c.smpp.url, 'smpp://a.example.com:2775');
    assert.deepEqual(c.providers, [
      {
        name: 'carrier-b',
        kind: 'smpp',
        url: 'smpp://smsc-b.example.com:2775',
        systemId: 'sparrow-b',
        password: SECRET,
        windowSize: 50,
        maxPerSecond: 0,
      },
      {
        name: 'tw2',
        kind: 'twilio',
        baseUrl: 'https://api.twilio.com',
        accountSid: 'AC2',
        authToken: SECRET,
        timeoutMs: 10_000,
      },
    ]);
    // SMPP_WINDOW_SIZE's and SMPP_MAX_PER_SECOND's defaults.
    assert.deepEqual(load([smpp()]).providers[0], { ...c.providers[0], windowSize: 10, maxPerSecond: 100 });
  });

  it('refuses a bad list with one message naming the entry and the setting, never a secret', () => {
    for (const [list, expected] of [
      ['{"name":', /PROVIDERS must be a JSON array .*not valid JSON/],
      [{ name: 'carrier-b' }, /PROVIDERS must be a JSON array/],
      [
        [smpp(), smpp({ url: 'smpp://other:2775' })],
        /PROVIDERS\[1\] \("carrier-b"\): the name is given to two instances/,
      ],
      [[smpp({ kind: 'http' })], /PROVIDERS\[0\] \("carrier-b"\): kind must be smpp or twilio/],
      [[smpp({ url: undefined })], /PROVIDERS\[0\] \("carrier-b"\): url is required/],
      [
        [smpp({ url: `http://x:${SECRET}@h` })],
        /PROVIDERS\[0\] \("carrier-b"\): url must be a URL such as smpp:\/\//,
      ],
      [
        [smpp({ name: 'smpp' })],
        /PROVIDERS\[0\] \("smpp"\): the name smpp is the built-in instance \(configured by SMPP_\*\)/,
      ],
      [[twilio({ name: 'twilio' })], /PROVIDERS\[0\] \("twilio"\): the name twilio is the built-in/],
      [[smpp({ name: 'simulator' })], /the name simulator is the built-in/],
      [[smpp({ name: 'Carrier B' })], /PROVIDERS\[0\]: name must be 1 to 32 lowercase letters/],
      [[smpp({ name: 'c'.repeat(33) })], /PROVIDERS\[0\]: name must be/],
      [
        [smpp({ systemID: 'x' })],
        /unknown setting "systemID" \(a smpp instance takes name, kind, url, systemId/,
      ],
      [[smpp({ windowSize: 0 })], /windowSize must be an integer between 1 and 1000/],
      [[twilio({ authToken: '' })], /PROVIDERS\[0\] \("tw2"\): authToken is required/],
      [[twilio({ url: 'https://x' })], /unknown setting "url"/],
      [['carrier-b'], /PROVIDERS\[0\]: must be an object/],
    ] as const) {
      assert.throws(
        () => load(list),
        (err: Error) => {
          assert.ok(err instanceof ConfigError, String(err));
          assert.match(err.message, expected);
          assert.ok(!err.message.includes(SECRET), err.message);
          return true;
        },
        JSON.stringify(list),
      );
    }
  });

  it('stops `sparrow start` with one line and exit code 2, without the password', async () => {
    const child = spawn(process.execPath, [path.resolve('bin/sparrow.js'), 'start'], {
      env: {
        ...process.env,
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
        PROVIDERS: JSON.stringify([smpp(), smpp({ url: 'smpp://c.example.com:2775' })]),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 2, out);
    assert.deepEqual(out.trim().split('\n'), [
      'sparrow: configuration error: PROVIDERS[1] ("carrier-b"): the name is given to two instances',
    ]);
  });
});
