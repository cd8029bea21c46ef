// Billing (Administrator): balance and plan, checkout, auto top-up, transactions.
import { api } from '../api.js';
import { badge, field, h, money, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

const PLANS = [
  ['starter', 'Starter (at least 20)'],
  ['growth', 'Growth (at least 100)'],
  ['business', 'Business (at least 500)'],
];

/** #/billing?offset= */
export async function billingPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const [account, balance, topup, tx] = await Promise.all([
    api('GET', ''),
    api('GET', '/balance'),
    api('GET', '/autotopup'),
    api('GET', '/billing/transactions', { query: { offset, limit: 20 } }),
  ]);
  const a = account.data;
  const currency = balance.data.currency;
  view.append(
    h('h2', {}, 'Billing'),
    h(
      'div',
      { class: 'cards' },
      h(
        'div',
        { class: 'card' },
        h('h3', {}, 'Balance'),
        h('p', { class: 'big', 'data-test': 'balance' }, money(balance.data.balance, currency)),
      ),
      h(
        'div',
        { class: 'card' },
        h('h3', {}, 'Plan'),
        h('p', { class: 'big', 'data-test': 'plan' }, String(a.plan)),
        h('p', {}, `${a.status}${a.trial ? ' (trial)' : ''}`),
      ),
    ),
    checkoutForm(),
    topupForm(topup.data, currency),
    h('h3', {}, 'Transactions'),
    table(
      [
        ['When', (t) => when(t.created.at)],
        ['Type', (t) => t.type],
        ['Amount', (t) => money(t.amount, currency)],
        ['Balance after', (t) => (t.balanceAfter === undefined ? '—' : money(t.balanceAfter, currency))],
        ['Description', (t) => h('bdi', {}, t.description)],
        ['Reference', (t) => h('code', {}, t.reference)],
      ],
      tx.data,
      'No transactions yet.',
    ),
    pager(tx.pagination, (o) => go('/billing', { offset: o })),
  );
}

function checkoutForm() {
  const plan = h(
    'select',
    { name: 'plan' },
    PLANS.map(([id, label]) => h('option', { value: id }, label)),
  );
  const commitment = h('input', {
    name: 'commitment',
    type: 'number',
    min: 1,
    max: 50000,
    step: 1,
    required: true,
    value: '20',
  });
  const frequency = h(
    'select',
    { name: 'frequency' },
    h('option', { value: 'monthly' }, 'Monthly'),
    h('option', { value: 'annually' }, 'Annually'),
  );
  const name = h('input', {
    name: 'billingName',
    required: true,
    maxlength: 200,
    autocomplete: 'organization',
  });
  const email = h('input', {
    name: 'billingEmail',
    type: 'email',
    required: true,
    maxlength: 254,
    autocomplete: 'email',
  });
  const out = h('div', {});
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const back = `${location.origin}${location.pathname}#/billing`;
        try {
          const { data } = await api('POST', '/checkout', {
            query: { successUrl: back, cancelUrl: back },
            json: {
              plan: plan.value,
              commitment: Number(commitment.value),
              frequency: frequency.value,
              name: name.value.trim(),
              email: email.value.trim(),
            },
          });
          // Only an http(s) address becomes a link.
          const url = /^https?:\/\//i.test(data) ? data : null;
          out.replaceChildren(
            h(
              'p',
              {},
              'Pay at: ',
              url
                ? h('a', { href: url, 'data-test': 'checkout-url', rel: 'noopener noreferrer' }, url)
                : h('code', {}, data),
            ),
          );
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Checkout'),
    h(
      'p',
      { class: 'muted' },
      'Pays the commitment once and credits it to the balance; the payment method is saved for auto top-up.',
    ),
    field('Plan', plan),
    field('Amount (commitment)', commitment),
    field('Frequency', frequency),
    field('Billing name', name),
    field('Billing e-mail', email),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open checkout')),
    out,
  );
}

function topupForm(t, currency) {
  const threshold = h('input', {
    name: 'threshold',
    type: 'number',
    min: 0,
    max: 1000000,
    step: '0.01',
    required: true,
    value: t.threshold === undefined ? '' : String(t.threshold),
  });
  const amount = h('input', {
    name: 'amount',
    type: 'number',
    min: 1,
    max: 100000,
    step: '0.01',
    required: true,
    value: t.amount === undefined ? '' : String(t.amount),
  });
  const maxPerMonth = h('input', {
    name: 'maxPerMonth',
    type: 'number',
    min: 1,
    max: 100,
    step: 1,
    value: String(t.maxPerMonth ?? 5),
  });
  const disable = async () => {
    try {
      await api('DELETE', '/autotopup');
      showAfterNavigation('Auto top-up disabled.');
      go('/billing', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const json = { threshold: Number(threshold.value), amount: Number(amount.value) };
          if (maxPerMonth.value) json.maxPerMonth = Number(maxPerMonth.value);
          await api('PUT', '/autotopup', { json });
          showAfterNavigation('Auto top-up enabled.');
          go('/billing', { t: Date.now() });
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Auto top-up'),
    h(
      'p',
      { 'data-test': 'autotopup-state' },
      badge(t.enabled ? 'active' : 'disabled'),
      ` ${t.topupsThisMonth} top-up(s) this month`,
      t.paymentMethod
        ? ` · payment method ${t.paymentMethod.provider}`
        : ' · no saved payment method (complete a checkout first)',
    ),
    field(`Top up below (${currency})`, threshold),
    field(`Top-up amount (${currency})`, amount),
    field('At most per month', maxPerMonth),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, t.enabled ? 'Save auto top-up' : 'Enable auto top-up'),
      t.enabled ? h('button', { type: 'button', class: 'danger', onclick: disable }, 'Disable') : null,
    ),
    t.recentTopups.length
      ? table(
          [
            ['When', (r) => when(r.created)],
            ['Amount', (r) => money(r.amount, r.currency)],
            ['Status', (r) => badge(r.status)],
            ['Error', (r) => (r.error ? `${r.error.message ?? ''} (${r.error.code ?? ''})` : '')],
          ],
          t.recentTopups,
        )
      : null,
  );
}
