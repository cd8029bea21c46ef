// Overview: today's and the last 30 days' figures with a chart, the account, its balance, its
// phone numbers and its groups.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { badge, h, money, table, when } from '../dom.js';

/** The figures of a report as cards: sent, delivered, failed, replies, opt-outs, clicks, spend. */
export function figureCards(r, currency, testId) {
  const t = r.totals;
  const card = (label, value, note) =>
    h(
      'div',
      { class: 'figure' },
      h('span', { class: 'figure-label' }, label),
      h('strong', {}, value),
      note ? h('span', { class: 'muted' }, note) : null,
    );
  return h(
    'div',
    { class: 'figures', 'data-test': testId },
    card('Sent', String(t.sent)),
    card('Delivered', String(t.delivered), t.sent ? `${Math.round(t.deliveryRate * 100)} %` : ''),
    card('Failed', String(t.failed)),
    card('Replies', String(t.replies)),
    card('Opt-outs', String(t.optOuts)),
    card('Clicks', String(t.clicks)),
    card('Spend', money(t.spend, currency)),
  );
}

/** #/overview */
export async function overviewPage(view) {
  view.append(h('h2', {}, 'Overview'));
  const startOfToday = new Date();
  startOfToday.setHours(0, 0, 0, 0);
  const [account, balance, numbers, groups, month, today] = await Promise.all([
    api('GET', ''),
    api('GET', '/balance'),
    api('GET', '/phonenumbers', { query: { limit: 100 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
    api('GET', '/reports/summary'),
    api('GET', '/reports/summary', { query: { from: startOfToday.toISOString() } }),
  ]);
  const a = account.data;
  view.append(
    h('h3', {}, 'Today'),
    figureCards(today.data, a.currency, 'today'),
    h(
      'p',
      { class: 'muted' },
      `${today.data.totals.sent ? '' : 'Nothing sent yet today. '}${month.data.queued} message(s) waiting to be dispatched.`,
    ),
    h('h3', {}, 'Last 30 days'),
    figureCards(month.data, a.currency, 'month'),
    barChart(
      month.data.days,
      [
        ['sent', 'Sent'],
        ['delivered', 'Delivered'],
        ['failed', 'Failed'],
      ],
      'Messages per day',
    ),
    barChart(
      month.data.days,
      [
        ['replies', 'Replies'],
        ['optOuts', 'Opt-outs'],
        ['clicks', 'Clicks'],
      ],
      'Replies, opt-outs and clicks per day',
    ),
  );
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
