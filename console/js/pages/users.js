// Users: the people who sign in to this account's console, their roles, and invitations (the open
// ones listed, revoked or sent again with a new link).
import { api } from '../api.js';
import { field, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go } from '../router.js';

const ROLES = [
  ['Administrator', 'everything, including API credentials, billing and users'],
  ['Member', 'sends and manages contacts, campaigns and automations'],
  ['Viewer', 'reads only'],
];

/** #/users?offset= */
export async function usersPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const res = await api('GET', '/users', { query: { offset, limit: 20 } });
  const out = h('div', {});
  const invites = h('div', {});
  async function loadInvites() {
    const open = await api('GET', '/invitations', { query: { limit: 100 } });
    invites.replaceChildren(
      h('h3', {}, 'Open invitations'),
      table(
        [
          ['E-mail', (i) => h('bdi', {}, i.email)],
          ['Role', (i) => i.role],
          ['Invited', (i) => when(i.created.at)],
          ['Valid until', (i) => when(i.expires)],
          ['E-mail sent', (i) => EMAIL_STATUS[i.emailStatus] ?? i.emailStatus],
          [
            '',
            (i) =>
              h(
                'span',
                { class: 'row-buttons' },
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    onclick: () => resend(i),
                    'aria-label': `Send again to ${i.email}`,
                  },
                  'Send again',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    onclick: () => revokeInvite(i),
                    'aria-label': `Revoke the invitation of ${i.email}`,
                  },
                  'Revoke',
                ),
              ),
          ],
        ],
        open.data,
        'No invitation is waiting to be accepted.',
      ),
    );
  }
  const refresh = () => loadInvites().catch(showError);
  async function resend(i) {
    try {
      const { data } = await api('POST', `/invitations/${encodeURIComponent(i.id)}/resend`);
      showLink(out, data);
      showInfo(
        data.emailStatus === 'sent'
          ? `A new link was e-mailed to ${data.email}.`
          : `A new link for ${data.email}: the old one no longer works.`,
      );
      refresh();
    } catch (err) {
      showError(err);
    }
  }
  async function revokeInvite(i) {
    if (!confirm(`Revoke the invitation of ${i.email}? Its link stops working.`)) return;
    try {
      await api('DELETE', `/invitations/${encodeURIComponent(i.id)}`);
      showInfo(`The invitation of ${i.email} was revoked.`);
      refresh();
    } catch (err) {
      showError(err);
    }
  }
  await loadInvites();
  view.append(
    h('h2', {}, 'Users'),
    table(
      [
        ['E-mail', (u) => h('bdi', {}, u.email)],
        ['Name', (u) => h('bdi', {}, [u.firstName, u.lastName].filter(Boolean).join(' ') || '—')],
        ['Role', (u) => roleSelect(u)],
        ['Status', (u) => (u.active ? 'active' : 'invited')],
        ['Joined', (u) => when(u.created.at)],
        ['', (u) => h('button', { type: 'button', class: 'danger', onclick: () => remove(u) }, 'Remove')],
      ],
      res.data,
      'No users yet.',
    ),
    pager(res.pagination, (o) => go('/users', { offset: o })),
    invites,
    inviteForm(out, refresh),
  );
}

/** What became of an invitation's e-mail, in words. */
const EMAIL_STATUS = {
  none: 'no (link passed on by hand)',
  sending: 'sending',
  sent: 'yes',
  failed: 'failed',
};

/**
 * Shows an invitation's link (shown once) in `out`, with what became of its e-mail.
 * @param {HTMLElement} out
 * @param {any} data the invitation as POST …/users answers it
 */
function showLink(out, data) {
  const linkBox = h('input', {
    readonly: true,
    value: data.link,
    'aria-label': 'Invitation link',
    class: 'wide',
  });
  const sent = data.emailStatus === 'sent';
  out.replaceChildren(
    h(
      'p',
      {},
      sent ? 'The link was e-mailed to ' : 'Send this link to ',
      h('bdi', {}, data.email),
      ` (valid until ${when(data.expires)}; shown once)`,
      sent ? '. It is here too:' : ':',
    ),
    ...(data.emailStatus === 'failed'
      ? [h('p', { class: 'flash-error' }, `The e-mail was not sent: ${data.emailError ?? 'unknown reason'}.`)]
      : []),
    linkBox,
  );
  linkBox.select();
}

function roleSelect(u) {
  const select = h(
    'select',
    {
      'aria-label': `Role of ${u.email}`,
      onchange: async () => {
        try {
          await api('PUT', `/users/${encodeURIComponent(u.id)}`, { json: { role: select.value } });
          showAfterNavigation(`${u.email} is now ${select.value}.`);
          go('/users', { t: Date.now() });
        } catch (err) {
          select.value = u.role;
          showError(err);
        }
      },
    },
    ROLES.map(([r]) => h('option', { value: r, selected: r === u.role }, r)),
  );
  return select;
}

async function remove(u) {
  if (!confirm(`Remove ${u.email} from this account?`)) return;
  try {
    const { data } = await api('DELETE', `/users/${encodeURIComponent(u.id)}`);
    showAfterNavigation(`${u.email} was removed.${cutOffText(data)}`);
    go('/users', { t: Date.now() });
  } catch (err) {
    showError(err);
  }
}

/** What a removal cut off (what acted in the person's name, or whose secret they saw), in words. */
function cutOffText(data) {
  if (!data) return '';
  const names = (list, what) => (list.length ? [`${what}: ${list.join(', ')}`] : []);
  const parts = [
    ...names(
      data.apiClients.map((c) => c.name),
      'API clients revoked',
    ),
    ...names(
      data.smppCredentials.map((c) => `${c.name} (${c.systemId})`),
      'SMPP credentials revoked',
    ),
    ...names(
      data.webhooks.map((w) => w.destination),
      'webhooks paused until an administrator confirms them (Webhooks page)',
    ),
  ];
  return parts.length ? ` Cut off with them: ${parts.join('; ')}.` : ' Nothing acted in their name.';
}

/**
 * The invitation form; the link goes to `out`, and `created()` refreshes the open invitations.
 * @param {HTMLElement} out
 * @param {() => void} created
 */
function inviteForm(out, created) {
  const email = h('input', { name: 'email', type: 'email', required: true, maxlength: 320 });
  const role = h(
    'select',
    { name: 'role' },
    ROLES.map(([r, what]) => h('option', { value: r, selected: r === 'Member' }, `${r}: ${what}`)),
  );
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const { data } = await api('POST', '/users', {
            json: { email: email.value.trim(), role: role.value },
          });
          showLink(out, data);
          showInfo(
            data.emailStatus === 'sent' ? `Invitation e-mailed to ${data.email}.` : 'Invitation created.',
          );
          email.value = '';
          created();
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Invite a person'),
    field('E-mail', email),
    field('Role', role),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create invitation link')),
    out,
  );
}
