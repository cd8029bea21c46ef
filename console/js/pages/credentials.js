// API credentials: the account's API clients for integrations, with the scopes chosen for each; the
// secret is shown once, and the account id, client id and secret each have a Copy button.
import { api, session } from '../api.js';
import { copyBox } from '../copy.js';
import { field, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go } from '../router.js';

/**
 * What a client can be given, area by area, in words: [area, what it covers, its read scope, its
 * change scopes]. `messages:send` is the messages' change.
 * @type {[area: string, what: string, read: string | null, change: string[]][]}
 */
const AREAS = [
  ['Contacts', 'contacts, CSV imports', 'contacts:read', ['contacts:write']],
  ['Lists', 'lists and their members', 'lists:read', ['lists:write']],
  ['Messages', 'messages, reports and send jobs; sending', 'messages:read', ['messages:send']],
  ['Conversations', 'the inbox and saved replies', 'conversations:read', ['conversations:write']],
  ['Campaigns', 'campaigns and drip campaigns', 'campaigns:read', ['campaigns:write']],
  ['Templates', 'message templates', 'templates:read', ['templates:write']],
  ['Workflows', 'workflows and enrollments', 'workflows:read', ['workflows:write']],
  ['Lead forms', 'forms and their conversions', 'forms:read', ['forms:write']],
  ['Tracked links', 'short links and their clicks', 'links:read', ['links:write']],
  ['Autoresponders', 'automatic replies', 'autoresponders:read', ['autoresponders:write']],
  ['Meetings', 'meeting types and bookings', 'meetings:read', ['meetings:write']],
  ['Calls', 'calls', 'calls:read', []],
  ['Numbers', 'phone numbers and groups', 'numbers:read', ['numbers:write']],
  ['Routes', 'which providers carry which destinations', 'routes:read', ['routes:write']],
  ['Webhooks', 'webhook subscriptions', 'webhooks:read', ['webhooks:write']],
  ['Integrations', 'CRM connections', 'integrations:read', ['integrations:write']],
  ['Account', 'the account and its settings', 'account:read', ['account:write']],
  ['Billing', 'checkout and auto top-up', null, ['billing:write']],
  ['Users', 'console users and invitations', 'users:read', ['users:write']],
  ['API credentials', 'API clients', 'clients:read', ['clients:write']],
  ['SMPP', 'SMPP credentials', 'smpp:read', ['smpp:write']],
];

/** What a marketing integration needs (a shop, a CRM, a sign-up form): the default choice. */
const MARKETING = new Set([
  'contacts:read',
  'contacts:write',
  'lists:read',
  'lists:write',
  'messages:read',
  'messages:send',
  'conversations:read',
  'conversations:write',
  'campaigns:read',
  'campaigns:write',
  'templates:read',
  'templates:write',
  'links:read',
  'links:write',
  'forms:read',
  'account:read',
]);

/** #/credentials?offset= */
export async function credentialsPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const list = h('div', {});
  async function load() {
    const res = await api('GET', '/clients', { query: { offset, limit: 20 } });
    list.replaceChildren(
      table(
        [
          ['Name', (c) => h('bdi', {}, c.name)],
          ['Client id', (c) => h('code', {}, c.id)],
          [
            'Scopes',
            (c) =>
              h(
                'span',
                { class: 'excerpt', title: c.scopes.join(' ') },
                `${c.scopes.length} scope${c.scopes.length === 1 ? '' : 's'}`,
              ),
          ],
          ['Created', (c) => when(c.created)],
          [
            'Status',
            (c) =>
              c.revoked
                ? `revoked ${when(c.revokedAt)}${c.revokedReason === 'creator-removed' ? ': its creator left the account' : ''}`
                : 'active',
          ],
          [
            '',
            (c) =>
              c.revoked
                ? ''
                : h('button', { type: 'button', class: 'danger', onclick: () => revoke(c) }, 'Revoke'),
          ],
        ],
        res.data,
        'No API clients yet.',
      ),
      pager(res.pagination, (o) => go('/credentials', { offset: o })),
    );
  }
  await load();
  view.append(
    h('h2', {}, 'API credentials'),
    h(
      'p',
      {},
      'Integrations exchange a client id and secret for an access token at ',
      h('code', {}, 'POST /oauth2/token'),
      ', then call ',
      h('code', {}, '/v1/accounts/{account id}/…'),
      '. Create one per integration, so one can be revoked without touching the others.',
    ),
    copyBox('Account id', session()?.accountId ?? ''),
    list,
    createForm(() => load().catch(showError)),
  );
}

async function revoke(c) {
  if (!confirm(`Revoke “${c.name}”? Integrations using it stop working at once.`)) return;
  try {
    await api('DELETE', `/clients/${encodeURIComponent(c.id)}`);
    showAfterNavigation(`“${c.name}” was revoked.`);
    go('/credentials', { t: Date.now() });
  } catch (err) {
    showError(err);
  }
}

/**
 * The form that creates a client: a name and what it may do, area by area (read, change), the
 * marketing set ticked at first; `created()` refreshes the list.
 * @param {() => void} created
 */
function createForm(created) {
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const out = h('div', {});
  /** @type {HTMLInputElement[]} */
  const boxes = [];
  const box = (/** @type {string[]} */ scopes, /** @type {string} */ label) => {
    if (!scopes.length) return '—';
    const input = h('input', {
      type: 'checkbox',
      name: 'scope',
      value: scopes.join(' '),
      checked: scopes.every((s) => MARKETING.has(s)),
      'aria-label': label,
    });
    boxes.push(input);
    return input;
  };
  const chosen = () => boxes.filter((b) => b.checked).flatMap((b) => b.value.split(' '));
  const pick = (/** @type {(scope: string) => boolean} */ which) => {
    for (const b of boxes) b.checked = b.value.split(' ').every(which);
  };
  const rows = h(
    'table',
    { class: 'scopes' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Area'),
        h('th', { scope: 'col' }, 'Read'),
        h('th', { scope: 'col' }, 'Change'),
      ),
    ),
    h(
      'tbody',
      {},
      AREAS.map(([area, what, read, change]) =>
        h(
          'tr',
          {},
          h('td', {}, h('strong', {}, area), h('br'), h('small', { class: 'muted' }, what)),
          h('td', { 'data-label': 'Read' }, read ? box([read], `Read ${area.toLowerCase()}`) : '—'),
          h('td', { 'data-label': 'Change' }, box(change, `Change ${area.toLowerCase()}`)),
        ),
      ),
    ),
  );
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const scopes = chosen();
        if (!scopes.length) {
          showError(new Error('Choose at least one thing the integration may do.'));
          return;
        }
        try {
          const { data } = await api('POST', '/clients', { json: { name: name.value.trim(), scopes } });
          out.replaceChildren(
            h('p', {}, 'Store the secret now: it is not shown again.'),
            copyBox('Client id', data.id),
            copyBox('Client secret', data.secret),
          );
          out.querySelector('input[aria-label="Client secret"]')?.setAttribute('name', 'secret');
          showInfo(`“${data.name}” created with ${data.scopes.length} scopes.`);
          name.value = '';
          created();
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Create API credentials'),
    field('Name', name, 'What the integration is, e.g. “Shop orders”.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'What it may do'),
      h(
        'p',
        { class: 'muted' },
        'Ticked: what a marketing integration (a shop, a CRM, a sign-up form) needs. Give it no more than it uses.',
      ),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => pick((s) => MARKETING.has(s)) },
          'Marketing set',
        ),
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => pick((s) => s.endsWith(':read')) },
          'Read only',
        ),
        h('button', { type: 'button', class: 'secondary', onclick: () => pick(() => true) }, 'Everything'),
      ),
      rows,
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create')),
    out,
  );
}
