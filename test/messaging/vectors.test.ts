// One definition per rule, held to shared vectors (test/messaging/vectors/*.json): the TypeScript
// module the server uses, its SQL mirror for set-based sends, and the browser build of the same
// module that the console is served must each give every vector's answer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { findContact } from '../../src/db/queries/contacts.ts';
import { renderForContacts } from '../../src/db/queries/render-sql.ts';
import { mergeValues, renderForContact } from '../../src/domain/contacts/merge-values.ts';
import {
  attributeText,
  parseTemplate,
  type RenderContact,
  renderTemplate,
} from '../../src/messaging/render.ts';
import { countSegments, GSM7_BASIC, GSM7_EXTENSION, smartEncode } from '../../src/messaging/segments.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const vectors = (name: string) =>
  JSON.parse(readFileSync(new URL(`vectors/${name}`, import.meta.url), 'utf8'));

interface SegmentVector {
  name: string;
  parts: [string, number][];
  encoding: string;
  units: number;
  segments: number;
}
const SEGMENTS: SegmentVector[] = vectors('segments.json').vectors;
const textOf = (v: SegmentVector) => v.parts.map(([s, n]) => s.repeat(n)).join('');
const expected = ({ encoding, units, segments }: SegmentVector) => ({ encoding, units, segments });

interface RenderCase {
  contact: string;
  template: string;
  rendered: string;
}
const RENDER: { contacts: Record<string, RenderContact>; cases: RenderCase[] } = vectors('render.json');

/** Imports the module the console is served at `url`, as a browser would get it. */
async function served(svc: TestService, url: string) {
  const res = await call(svc.api, 'GET', url);
  assert.equal(res.statusCode, 200, url);
  assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8', url);
  return import(`data:text/javascript;base64,${Buffer.from(res.body).toString('base64')}`);
}

/** A deterministic pseudo-random generator, so a failure names a reproducible text. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the segment rule on the shared vectors', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('countSegments gives every vector’s answer', () => {
    assert.ok(SEGMENTS.length >= 20);
    for (const v of SEGMENTS) assert.deepEqual(countSegments(textOf(v)), expected(v), v.name);
  });

  it('the SQL functions sparrow_encoding, sparrow_units and sparrow_segments give every vector’s answer', async () => {
    const { rows } = await svc.db.query(
      `SELECT sparrow_encoding(t) AS encoding, sparrow_units(t) AS units, sparrow_segments(t) AS segments
       FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i`,
      [SEGMENTS.map(textOf)],
    );
    SEGMENTS.forEach((v, i) => {
      assert.deepEqual({ ...rows[i] }, expected(v), v.name);
    });
  });

  it('the console’s served build gives every vector’s answer, and the server’s on 300 random texts', async () => {
    const mod = await served(svc, '/console/js/rules/segments.js');
    for (const v of SEGMENTS) assert.deepEqual(mod.countSegments(textOf(v)), expected(v), v.name);
    const rand = rng(42);
    const chars = [...`${GSM7_BASIC}${GSM7_EXTENSION}ж😀’é`];
    for (let i = 0; i < 300; i++) {
      let t = '';
      const len = Math.floor(rand() * 400);
      // Mostly GSM-7 text with the odd character outside it.
      for (let j = 0; j < len; j++)
        t +=
          rand() < 0.02
            ? chars[chars.length - 1 - Math.floor(rand() * 4)]
            : chars[Math.floor(rand() * (chars.length - 4))];
      assert.deepEqual(mod.countSegments(t), countSegments(t), JSON.stringify(t));
      assert.deepEqual(mod.nonGsmCharacters(t), [
        ...new Set([...t].filter((ch) => !GSM7_BASIC.includes(ch) && !GSM7_EXTENSION.includes(ch))),
      ]);
    }
  });
});

describe('merge-field rendering on the shared vectors', () => {
  let svc: TestService;
  let a: TestAccount;
  /** The vector contacts as created through the API: their ids, and the API's shape of each. */
  const created: Record<string, { id: string; api: Record<string, any> }> = {};
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    for (const [key, c] of Object.entries(RENDER.contacts)) {
      const { country: _country, id: _id, ...input } = c;
      const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        json: input,
      });
      assert.equal(res.statusCode, 201, res.body);
      const [api] = body(res).data;
      assert.equal(api.mobile.country, c.country, key);
      created[key] = { id: api.id, api };
    }
  });
  after(() => svc.close());

  it('renderTemplate gives every case’s text', () => {
    assert.ok(RENDER.cases.length >= 20);
    for (const c of RENDER.cases)
      assert.equal(renderTemplate(c.template, RENDER.contacts[c.contact]), c.rendered, c.template);
  });

  it('the bulk send’s SQL (renderSql over the stored contact) gives every case’s text', async () => {
    for (const c of RENDER.cases) {
      const rows = await renderForContacts(svc.db, a.accountId, parseTemplate(c.template), [
        created[c.contact].id,
      ]);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].body, c.rendered, c.template);
    }
  });

  it('the texts the service writes itself (mergeValues over the stored contacts row) give every case’s text', async () => {
    for (const c of RENDER.cases) {
      const row = await findContact(svc.db, a.accountId, created[c.contact].id);
      assert.ok(row);
      assert.equal(renderForContact(c.template, row), c.rendered, c.template);
    }
  });

  it('mergeValues maps a stored contact to its merge fields, custom attributes as stored', async () => {
    const row = await findContact(svc.db, a.accountId, created.unicode.id);
    assert.ok(row);
    assert.deepEqual(mergeValues(row), {
      id: created.unicode.id,
      firstName: '<b>&</b>',
      lastName: 'Ünïcödé 😀',
      email: null,
      mobile: '+61412345678',
      country: 'AU',
      attributes: { name: '\u202egnp.exe' },
    });
    const ada = await findContact(svc.db, a.accountId, created.ada.id);
    assert.ok(ada);
    const values = mergeValues(ada);
    assert.equal(values.firstName, 'Ada');
    assert.equal(values.mobile, '+447400123456');
    assert.equal(values.country, 'GB');
    assert.deepEqual(values.attributes, RENDER.contacts.ada.attributes);
  });

  it('an attribute’s text is jsonb_each_text’s, which the SQL size limit counts (sparrow_limit_attributes)', async () => {
    const { rows } = await svc.db.query(
      `SELECT e.key, e.value AS text FROM contacts c, jsonb_each_text(c.attributes) e WHERE c.id = $1`,
      [created.ada.id],
    );
    assert.ok(rows.length >= 15);
    const attributes = RENDER.contacts.ada.attributes ?? {};
    for (const { key, text } of rows) assert.equal(attributeText(attributes[key]), text ?? '', key);
  });

  it('the console’s served build gives every case’s text, for the contact as the API shows it', async () => {
    const mod = await served(svc, '/console/js/rules/render.js');
    for (const c of RENDER.cases) {
      assert.equal(mod.renderTemplate(c.template, RENDER.contacts[c.contact]), c.rendered, c.template);
      // The console renders the API's contact: the mobile as {number, country}, attributes as stored.
      const api = created[c.contact].api;
      const values = { ...api, mobile: api.mobile.number, country: api.mobile.country };
      assert.equal(mod.renderTemplate(c.template, values), c.rendered, `${c.template} (API contact)`);
    }
  });
});

interface SmartVector {
  name: string;
  text: string;
  encoded: string;
  encoding: string;
  segments: number;
}
const SMART: SmartVector[] = vectors('smart-encoding.json').vectors;

describe('smart encoding on the shared vectors', () => {
  let svc: TestService;
  let a: TestAccount;
  let contactId: string;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    // One contact holding every vector's text as an attribute (v0, v1, …): merged in by the bulk send's SQL.
    const attributes = Object.fromEntries(SMART.map((v, i) => [`v${i}`, v.text]));
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: { number: '+12015550188' }, attributes },
    });
    assert.equal(res.statusCode, 201, res.body);
    contactId = body(res).data[0].id;
  });
  after(() => svc.close());

  it('smartEncode gives every vector’s text, and the encoded text its encoding and segments', () => {
    assert.ok(SMART.length >= 10);
    for (const v of SMART) {
      assert.equal(smartEncode(v.text), v.encoded, v.name);
      const { encoding, segments } = countSegments(v.encoded);
      assert.deepEqual({ encoding, segments }, { encoding: v.encoding, segments: v.segments }, v.name);
    }
  });

  it('sparrow_smart_encode gives every vector’s text', async () => {
    const { rows } = await svc.db.query(
      'SELECT sparrow_smart_encode(t) AS t FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i',
      [SMART.map((v) => v.text)],
    );
    SMART.forEach((v, i) => {
      assert.equal(rows[i].t, v.encoded, v.name);
    });
  });

  it('the bulk send’s SQL encodes merged-in values with smart encoding on, and leaves them with it off', async () => {
    for (const [i, v] of SMART.entries()) {
      const parts = parseTemplate(`{{{v${i}}}}`);
      const [on] = await renderForContacts(svc.db, a.accountId, parts, [contactId], true);
      assert.deepEqual(
        { body: on.body, encoding: on.encoding, segments: on.segments },
        {
          body: v.encoded,
          encoding: v.encoding,
          segments: v.segments,
        },
        v.name,
      );
      const [off] = await renderForContacts(svc.db, a.accountId, parts, [contactId], false);
      assert.equal(off.body, v.text, v.name);
    }
  });

  it('the console’s served build gives every vector’s text', async () => {
    const mod = await served(svc, '/console/js/rules/segments.js');
    for (const v of SMART) assert.equal(mod.smartEncode(v.text), v.encoded, v.name);
  });
});
