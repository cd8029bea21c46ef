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
