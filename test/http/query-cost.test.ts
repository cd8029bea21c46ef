import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * The cost one tenant's contact filter may put on PostgreSQL is bounded: at most 1,000 values per
 * attribute condition and 5,000 per filter, refused with a 400 naming the limit before any query
 * (before: a condition of 120,000 values, under 1 MiB, held PostgreSQL for ~47 s); a condition at
 * the limit is matched by hash and selects exactly what it did value by value.
 */
describe('query cost of attribute conditions', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const lists = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/lists`;
  /** 120,000 short distinct values: under 1 MiB of JSON, as the attack sent them. */
  const manyValues = (n: number) => Array.from({ length: n }, (_, i) => i.toString(36));
  const condition = (value: string[], comparator = '=') => ({ attribute: 'plan', comparator, value });

  const refused = (res: Awaited<ReturnType<typeof call>>, limit: RegExp) => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(body(res).success, false);
    assert.match(body(res).error.description, limit, res.body);
  };
  const newContact = async (json: object) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: `+1201${String(5_000_000 + seq++).padStart(7, '0')}`, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const members = async (filter: object) => {
    const res = await call(svc.api, 'POST', lists(a), { auth: a.auth, json: { name: `L${seq++}`, filter } });
    assert.equal(res.statusCode, 201, res.body);
    const read = await call(svc.api, 'GET', `${lists(a)}/${body(res).data.id}/contacts?limit=100`, {
      auth: a.auth,
    });
    assert.equal(read.statusCode, 200, read.body);
    return body(read)
      .data.map((c: { firstName: string }) => c.firstName)
      .sort();
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 100 });
    await newContact({ firstName: 'Ann', attributes: { plan: 'Gold', age: '10.0' } });
    await newContact({ firstName: 'Bob', attributes: { plan: 'silver', age: '7' } });
    await newContact({ firstName: 'Cid', attributes: { plan: 'Ünïcode', age: 'ten' } });
    await newContact({ firstName: 'Dee' });
  });
  after(() => svc.close());

  it('refuses a condition of 120,000 values (under 1 MiB) with a 400 naming the limit, before any query', async () => {
    const value = manyValues(120_000);
    const json = { name: 'costly', filter: { attributes: [condition(value)] } };
    assert.ok(JSON.stringify(json).length < 1024 * 1024, 'the body fits the 1 MiB JSON limit');
    refused(await call(svc.api, 'POST', lists(a), { auth: a.auth, json }), /1000/);
    // The same condition in a send's filters, and a bulk job's selector.
    refused(
      await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
        auth: a.auth,
        json: { template: 'hi', filters: { attributes: [condition(value)] } },
      }),
      /1000/,
    );
    refused(
      await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/bulk/contacts`, {
        auth: a.auth,
        json: { action: 'block', selector: { filters: { attributes: [condition(value)] } } },
      }),
      /1000/,
    );
    const listed = await call(svc.api, 'GET', `${lists(a)}?name=costly`, { auth: a.auth });
    assert.equal(body(listed).pagination.totalCount, 0, 'no list was made');
  });

  it('refuses more than 5,000 values over the conditions of one filter, and more than 50 conditions', async () => {
    const six = Array.from({ length: 6 }, () => condition(manyValues(1_000)));
    refused(
      await call(svc.api, 'POST', lists(a), {
        auth: a.auth,
        json: { name: 'six', filter: { attributes: six } },
      }),
      /5000/,
    );
    refused(
      await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
        auth: a.auth,
        json: { template: 'hi', filters: { attributes: six } },
      }),
      /5000/,
    );
    const many = Array.from({ length: 51 }, () => condition(['x']));
    refused(
      await call(svc.api, 'POST', lists(a), {
        auth: a.auth,
        json: { name: 'many', filter: { attributes: many } },
      }),
      /50/,
    );
    // An update is held to the same limits.
    const made = await call(svc.api, 'POST', lists(a), {
      auth: a.auth,
      json: { name: 'to update', filter: { optIn: true } },
    });
    refused(
      await call(svc.api, 'PUT', `${lists(a)}/${body(made).data.id}`, {
        auth: a.auth,
        json: { filter: { attributes: six } },
      }),
      /5000/,
    );
  });

  it('matches a condition at the limit as it matched value by value: text case-insensitively, numbers by value', async () => {
    // 1,000 values: texts in another case, a number written otherwise ("10" for "10.0").
    const filler = manyValues(1_000 - 3).map((v) => `z${v}`);
    assert.deepEqual(await members({ attributes: [condition([...filler, 'GOLD', 'ÜNïCODE', 'x'])] }), [
      'Ann',
      'Cid',
    ]);
    assert.deepEqual(
      await members({
        attributes: [{ attribute: 'age', comparator: '=', value: [...filler.slice(2), '10', '7.00', 'TEN'] }],
      }),
      ['Ann', 'Bob', 'Cid'],
    );
    // != : none of the values; a contact without the attribute is "not equal".
    assert.deepEqual(await members({ attributes: [condition([...filler, 'gold', 'SILVER'], '!=')] }), [
      'Cid',
      'Dee',
    ]);
    assert.deepEqual(
      await members({ attributes: [{ attribute: 'age', comparator: '!=', value: [...filler, '10'] }] }),
      ['Bob', 'Cid', 'Dee'],
    );
    // Five conditions of 1,000 values (the most one filter may hold) all together.
    const five = Array.from({ length: 5 }, (_, i) => condition([...filler.slice(i), 'gold', 'silver']));
    assert.deepEqual(await members({ attributes: five }), ['Ann', 'Bob']);
  });
});
