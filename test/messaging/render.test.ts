import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderForContacts } from '../../src/db/queries/render-sql.ts';
import { parseTemplate, renderTemplate } from '../../src/messaging/render.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { HOSTILE_TEMPLATES } from './hostile-templates.ts';

const ADA = {
  id: 'c1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  mobile: '+447400123456',
  country: 'GB',
  attributes: { plan: 'gold', visits: 3, vip: true, address: { city: 'London' } },
};

describe('renderTemplate', () => {
  it('renders {{{firstName}}} and {{{contact.firstName}}} alike', () => {
    assert.equal(renderTemplate('Hi {{{firstName}}} / {{{contact.firstName}}}!', ADA), 'Hi Ada / Ada!');
  });

  it('renders every contact field', () => {
    assert.equal(
      renderTemplate('{{{id}}}|{{{lastName}}}|{{{email}}}|{{{mobile}}}|{{{country}}}', ADA),
      'c1|Lovelace|ada@example.com|+447400123456|GB',
    );
  });

  it('renders custom attributes by name, as attributes.x and as contact.attributes.x', () => {
    assert.equal(
      renderTemplate('{{{plan}}} {{{attributes.visits}}} {{{contact.attributes.vip}}}', ADA),
      'gold 3 true',
    );
  });

  it('tolerates whitespace inside the braces', () => {
    assert.equal(
      renderTemplate('Hi {{{  firstName }}} {{{ contact.attributes.plan  }}}', ADA),
      'Hi Ada gold',
    );
  });

  it('renders a missing value empty', () => {
    assert.equal(
      renderTemplate('[{{{nickname}}}][{{{contact.attributes.none}}}]', { firstName: null }),
      '[][]',
    );
    assert.equal(renderTemplate('Hi {{{firstName}}}.', {}), 'Hi .');
  });

  it('does not escape HTML', () => {
    assert.equal(
      renderTemplate('{{{firstName}}}', { firstName: '<b>Tom & "Jerry"</b>' }),
      '<b>Tom & "Jerry"</b>',
    );
  });

  it('leaves double braces and unclosed fields as text', () => {
    assert.equal(renderTemplate('{{firstName}} {{{firstName', ADA), '{{firstName}} {{{firstName');
  });

  it('parses literal text and fields', () => {
    assert.deepEqual(parseTemplate('a{{{firstName}}}b{{{x.y}}}'), [
      { kind: 'text', text: 'a' },
      { kind: 'field', field: 'firstName' },
      { kind: 'text', text: 'b' },
      { kind: 'attribute', name: 'x.y' },
    ]);
  });
});

describe('renderSql (SQL mirror of renderTemplate)', () => {
  let svc: TestService;
  let a: TestAccount;
  const contacts: {
    id: string;
    firstName?: string;
    lastName?: string;
    email?: string;
    mobile: string;
    country: string;
    attributes: Record<string, unknown>;
  }[] = [];
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    const inputs = [
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        mobile: '+447400123456',
        attributes: { plan: 'gold', visits: 3, vip: true, 'odd key': "it's" },
      },
      { firstName: '<b>&</b>', mobile: '+12015550123', attributes: { plan: 'silver' } },
      { lastName: 'Ünïcödé 😀', mobile: '+61412345678', attributes: {} },
    ];
    for (const input of inputs) {
      const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        json: input,
      });
      assert.equal(res.statusCode, 201, res.body);
      const [c] = body(res).data;
      contacts.push({
        ...input,
        id: c.id,
        mobile: c.mobile.number,
        country: c.mobile.country,
        attributes: c.attributes,
      });
    }
  });
  after(() => svc.close());

  const templates = [
    'Hi {{{firstName}}} {{{ contact.lastName }}}, your plan: {{{plan}}} ({{{attributes.visits}}} visits, vip={{{contact.attributes.vip}}})',
    '{{{id}}}|{{{email}}}|{{{mobile}}}|{{{country}}}|{{{odd key}}}|{{{missing}}}',
    "No merge fields, just $ and ' and \\ and {{ braces }}",
    '',
    '{{{firstName}}}',
    '😀 {{{lastName}}} ' + 'x'.repeat(150),
  ];

  for (const template of templates) {
    it(`renders ${JSON.stringify(template.slice(0, 40))} as TypeScript does, with the same segments`, async () => {
      const rows = await renderForContacts(
        svc.db,
        a.accountId,
        parseTemplate(template),
        contacts.map((c) => c.id),
      );
      assert.equal(rows.length, contacts.length);
      for (const row of rows) {
        const c = contacts.find((x) => x.id === row.id);
        assert.ok(c);
        assert.equal(row.body, renderTemplate(template, c));
      }
    });
  }
});

/** The pattern the scanner replaced (cubic backtracking), kept as the reference on short texts. */
const OLD_PATTERN = /\{\{\{\s*([^{}]*?)\s*\}\}\}/g;

/** Renders with the old pattern: firstName is "Ada", any other name renders as `<name>`. */
function oldRender(template: string): string {
  return template.replace(OLD_PATTERN, (_all, name: string) => {
    const bare = name.startsWith('contact.') ? name.slice('contact.'.length) : name;
    if (bare === 'firstName') return 'Ada';
    return `<${bare.startsWith('attributes.') ? bare.slice('attributes.'.length) : bare}>`;
  });
}

/** A deterministic pseudo-random generator, so a failure names a reproducible text. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('parseTemplate on hostile templates', () => {
  for (const { name, template, rendered } of HOSTILE_TEMPLATES) {
    it(`renders ${name} as the merge-field syntax says`, () => {
      assert.equal(renderTemplate(template, { firstName: 'Ada', attributes: {} }), rendered);
    });
  }

  it('finds the same fields as the pattern it replaced, on 20,000 random short texts', () => {
    const pieces = [
      '{',
      '}',
      '{{{',
      '}}}',
      ' ',
      '\t',
      '\n',
      'firstName',
      'contact.firstName',
      'a',
      '.',
      '\u00a0',
    ];
    const next = rng(7);
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      const count = Math.floor(next() * 12);
      for (let k = 0; k < count; k++) text += pieces[Math.floor(next() * pieces.length)];
      const mine = parseTemplate(text)
        .map((p) => (p.kind === 'text' ? p.text : p.kind === 'field' ? 'Ada' : `<${p.name}>`))
        .join('');
      assert.equal(mine, oldRender(text), `for ${JSON.stringify(text)}`);
    }
  });
});
