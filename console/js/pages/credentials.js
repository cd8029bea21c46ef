// API credentials: the account's API clients for integrations; the secret is shown once.
import { api } from '../api.js';
import { field, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go } from '../router.js';

/** #/credentials?offset= */
export async function credentialsPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const res = await api('GET', '/clients', { query: { offset, limit: 20 } });
  view.append(
    h('h2', {}, 'API credentials'),
    h(
      'p',
      {},
      'Integrations exchange a client id and secret for an access token at ',
      h('code', {}, 'POST /oauth2/token'),
      '. Create one per integration, so one can be revoked without touching the others.',
    ),
    table(
      [
        ['Name', (c) => h('bdi', {}, c.name)],
        ['Client id', (c) => h('code', {}, c.id)],
        [
          'Scopes',
          (c) => h('span', { class: 'excerpt', title: c.scopes.join(' ') }, `${c.scopes.length} scopes`),
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
    createForm(),
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

function createForm() {
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const out = h('div', {});
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const { data } = await api('POST', '/clients', { json: { name: name.value.trim() } });
          out.replaceChildren(
            h('p', {}, 'Store the secret now: it is not shown again.'),
            field('Client id', h('input', { readonly: true, value: data.id, class: 'wide' })),
            field(
              'Client secret',
              h('input', { readonly: true, value: data.secret, class: 'wide', name: 'secret' }),
            ),
          );
          showInfo(`“${data.name}” created.`);
          name.value = '';
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Create API credentials'),
    field('Name', name, 'What the integration is, e.g. “Shop orders”.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create')),
    out,
  );
}
