// Overview: today's and the last 30 days' figures with a chart, the account, its balance, its
// phone numbers and its groups.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { badge, field, h, money, table, when } from '../dom.js';
import { showError, showInfo } from '../flash.js';
import { mergeButtons } from '../message-box.js';

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
    t.optedOut ? card('Opted out', String(t.optedOut), 'not sent, not charged') : null,
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
    accountSettings(a),
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

/** The keyword replies the account settings edit: the API's name, the label, what it must say. */
const REPLIES = [
  ['optOut', 'Reply to STOP', 'Must say that no more messages will be sent; say how to come back (START).'],
  ['optIn', 'Reply to START', 'Must say how to opt out again (STOP).'],
  ['help', 'Reply to HELP', 'Who you are, how to reach you, and how to opt out (STOP).'],
];

/** The merge fields a keyword reply can carry, by name. */
const REPLY_FIELDS = [
  ['accountName', 'Account name'],
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
];

/** The default wording of the replies (the API's, shown until the account sets its own). */
const DEFAULT_OPT_OUT =
  '{{{accountName}}}: You are unsubscribed and will receive no further messages. Reply START to resubscribe.';

/**
 * The account's name (it leads the default opt-out and help replies), its time zone and its replies
 * to STOP, START and HELP, editable (PUT …/accounts/{id}); a Viewer sees the form and is told they
 * cannot change it.
 * @param {any} a the account
 */
function accountSettings(a) {
  const name = h('input', { name: 'accountName', value: a.name, required: true, maxlength: 100 });
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  if (!zones.includes(a.timezone)) zones.unshift(a.timezone);
  const zone = h(
    'select',
    { name: 'timezone' },
    zones.map((z) => h('option', { value: z, selected: z === a.timezone }, z)),
  );
  const replies = a.keywordReplies ?? { optOut: DEFAULT_OPT_OUT, optIn: '', help: '' };
  /** @type {Record<string, HTMLTextAreaElement>} */
  const boxes = {};
  const sample = h('p', { class: 'muted', 'data-test': 'stop-sample' });
  const drawSample = () => {
    const text = boxes.optOut.value.trim() || DEFAULT_OPT_OUT;
    sample.textContent = `A STOP is answered: “${text.replace(/\{\{\{\s*accountName\s*\}\}\}/g, name.value.trim() || a.name)}”`;
  };
  const replyFields = REPLIES.map(([key, label, hint]) => {
    const box = h('textarea', {
      name: `reply-${key}`,
      rows: 3,
      maxlength: 1600,
      required: true,
      oninput: drawSample,
    });
    box.value = replies[key] ?? '';
    boxes[key] = box;
    return h(
      'div',
      { class: 'keyword-reply' },
      field(label, box, hint),
      mergeButtons(box, drawSample, REPLY_FIELDS),
    );
  });
  name.addEventListener('input', drawSample);
  drawSample();
  const button = h('button', { type: 'submit' }, 'Save account settings');
  return h(
    'form',
    {
      class: 'panel',
      'aria-labelledby': 'account-settings',
      onsubmit: async (e) => {
        e.preventDefault();
        button.disabled = true;
        try {
          /** @type {Record<string, string>} */
          const keywordReplies = {};
          // Only the replies changed here are sent: one left as it was keeps following the defaults.
          for (const [key] of REPLIES)
            if (boxes[key].value.trim() !== (replies[key] ?? '').trim())
              keywordReplies[key] = boxes[key].value;
          const json = { name: name.value.trim(), timezone: zone.value, keywordReplies };
          const res = await api('PUT', '', { json });
          Object.assign(a, res.data);
          Object.assign(replies, res.data.keywordReplies);
          showInfo('Account settings saved.');
        } catch (err) {
          showError(err);
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h3', { id: 'account-settings' }, 'Account settings'),
    field(
      'Account name',
      name,
      'Your business as your customers know it: it starts the replies to STOP, START and HELP',
    ),
    field('Time zone', zone, 'Quiet hours where a number does not tell, and the days of reports'),
    h(
      'fieldset',
      { class: 'keyword-replies' },
      h('legend', {}, 'Replies to STOP, START and HELP'),
      h(
        'p',
        { class: 'muted' },
        'Carriers require these answers. They are sent free of charge, even to people who opted out.',
      ),
      ...replyFields,
      sample,
    ),
    h('div', { class: 'actions' }, button),
  );
}
