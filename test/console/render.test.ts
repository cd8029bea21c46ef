import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CONSOLE_ROOT } from '../../src/http/routes/console.ts';
import { renderTemplate } from '../../src/messaging/render.ts';
import { HOSTILE_TEMPLATES } from '../messaging/hostile-templates.ts';

// The console's render.js is a copy of the server's scanner (no build step): both must read alike.
const load = (file: string) => import(pathToFileURL(path.join(CONSOLE_ROOT, 'js', file)).href);

describe('the console’s merge-field preview', () => {
  it('renders hostile templates as the server does', async () => {
    const { renderTemplate: consoleRender, hasMergeFields } = await load('render.js');
    for (const { name, template, rendered } of HOSTILE_TEMPLATES) {
      assert.equal(consoleRender(template, { firstName: 'Ada', attributes: {} }), rendered, name);
      assert.equal(renderTemplate(template, { firstName: 'Ada', attributes: {} }), rendered, name);
    }
    assert.equal(hasMergeFields('{'.repeat(10_000)), false);
    assert.equal(hasMergeFields(`{{{${' '.repeat(10_000)}`), false);
    assert.equal(hasMergeFields('{{{{{{firstName}}}}}}'), true);
  });

  it('renders fields, attributes and whitespace as the server does', async () => {
    const { renderTemplate: consoleRender } = await load('render.js');
    const apiContact = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      mobile: { number: '+447400123456', country: 'GB' },
      attributes: { plan: 'gold', visits: 3, address: { city: 'London' } },
    };
    const flat = { ...apiContact, mobile: '+447400123456', country: 'GB' };
    for (const t of [
      'Hi {{{ firstName }}} {{{contact.lastName}}} {{{mobile}}} {{{country}}}',
      '{{{plan}}}/{{{attributes.visits}}}/{{{contact.attributes.address}}}/{{{missing}}}',
      '{{firstName}} {{{firstName',
      '{{{\tfirstName\n}}}{{{}}}',
    ]) {
      assert.equal(consoleRender(t, apiContact), renderTemplate(t, flat), t);
    }
  });
});
