import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, call } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

const NIL = '00000000-0000-0000-0000-000000000000';

describe('values PostgreSQL cannot hold are refused at the door', () => {
  const s = serviceWithAccount({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });

  const post = (path: string, payload: string, method: 'POST' | 'PUT' = 'POST') =>
    call(s.svc.api, method, `/v1/accounts/${s.a.accountId}${path}`, {
      auth: s.a.auth,
      jsonText: payload,
    });

  it('refuses an unpaired UTF-16 surrogate in a JSON body with 400 VAL-001', async () => {
    for (const payload of [
      '{"firstName":"a\\ud800b"}',
      '{"tags":["\\udc00"]}',
      '{"attributes":{"\\ud800":1}}',
    ]) {
      const res = await post('/contacts', payload);
      assert.equal(res.statusCode, 400, `${payload} → ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
      assert.match(body(res).error.message, /surrogate/);
    }
    // A pair is a character like any other.
    const ok = await post(
      '/contacts',
      '{"firstName":"\\ud83d\\ude00","mobile":"+12025550123","tags":["\\ud83d\\ude00"]}',
    );
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(body(ok).data[0].firstName, '😀');
  });

  it('refuses an infinite number (1e309, or a string the validator would coerce) with 400 naming it', async () => {
    for (const v of ['1e309', '"1e309"', '"Infinity"', '-1e400']) {
      const res = await post(`/meetingevents/${NIL}`, `{"bufferMinutes":${v}}`, 'PUT');
      assert.equal(res.statusCode, 400, `${v} → ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
      assert.match(body(res).error.message, /bufferMinutes/);
    }
    // A finite number goes on to the handler (an unknown event here).
    const res = await post(`/meetingevents/${NIL}`, '{"bufferMinutes":1e1}', 'PUT');
    assert.equal(res.statusCode, 404, res.body);
    // Text that merely mentions Infinity is text.
    const t = await post('/templates', '{"name":"To Infinity","template":"1e999 and Infinity"}');
    assert.equal(t.statusCode, 201, t.body);
  });

  it('answers a value the database refuses with 400, not 500, when no check caught it first', async () => {
    // conversations: [""] reaches the database today (its own check belongs to the send path).
    const res = await post('/messages', '{"template":"hi","conversations":[""]}');
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} ${res.body}`);
    assert.equal(body(res).success, false);
  });
});
