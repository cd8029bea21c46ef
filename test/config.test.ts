import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

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
