// Overview: the account, its balance, its phone numbers and its groups.
import { api } from '../api.js';
import { badge, h, money, table, when } from '../dom.js';

/** #/overview */
export async function overviewPage(view) {
  view.append(h('h2', {}, 'Overview'));
  const [account, balance, numbers, groups] = await Promise.all([
    api('GET', ''),
    api('GET', '/balance'),
    api('GET', '/phonenumbers', { query: { limit: 100 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
  ]);
  const a = account.data;
  view.append(
    h(
      'div',
      { class: 'cards' },
      h(
        'div',
        { class: 'card' },
        h('h3', {}, 'Account'),
        h('p', { class: 'big' }, a.name),
        h('p', {}, `Plan ${a.plan} · ${a.status}${a.trial ? ' (trial)' : ''}`),
        h('p', { class: 'muted' }, `Id ${a.id} · time zone ${a.timezone}`),
      ),
      h(
        'div',
        { class: 'card' },
        h('h3', {}, 'Balance'),
        h('p', { class: 'big', 'data-test': 'balance' }, money(balance.data.balance, balance.data.currency)),
      ),
      h(
        'div',
        { class: 'card' },
        h('h3', {}, 'Numbers'),
        h('p', { class: 'big' }, String(numbers.pagination.totalCount)),
        h('p', {}, `${groups.pagination.totalCount} group(s)`),
      ),
    ),
    h('h3', {}, 'Phone numbers'),
    table(
      [
        ['Number', (n) => n.number],
        ['Name', (n) => n.name ?? ''],
        ['Type', (n) => n.type],
        ['Provider', (n) => n.provider],
        ['Status', (n) => badge(n.status)],
        ['Groups', (n) => n.groups.map((g) => g.name).join(', ')],
        ['Throughput', (n) => `${n.throughput}/s`],
      ],
      numbers.data,
      'No phone numbers yet.',
    ),
    h('h3', {}, 'Groups'),
    table(
      [
        ['Name', (g) => (g.isDefault ? [g.name, ' ', h('span', { class: 'tag' }, 'default')] : g.name)],
        ['Numbers', (g) => g.phoneNumbers.map((n) => n.number).join(', ') || '—'],
        ['Shared pool', (g) => (g.useSharedPool ? 'yes' : 'no')],
        ['Created', (g) => when(g.created.at)],
      ],
      groups.data,
      'No groups yet.',
    ),
  );
}
