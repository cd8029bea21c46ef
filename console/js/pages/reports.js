// Report of one campaign, send job, drip campaign or workflow: the overview's figures (sent,
// delivered, failed, replies, opt-outs, clicks, spend) for a period, two charts over the days and
// the days as a table, from GET …/reports/{kind}/{id}.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { field, h, money, pager, table, when } from '../dom.js';
import { exportButton, isoDay, periodOf, periodProblem } from '../download.js';
import { go, link } from '../router.js';
import { figureCards } from './overview.js';

/**
 * @typedef {{day: string, sent: number, delivered: number, failed: number, replies: number,
 *   optOuts: number, clicks: number, spend: number}} DayFigures
 * @typedef {{totals: Omit<DayFigures, 'day'> & {deliveryRate: number}, days: DayFigures[],
 *   currency: string, queued: number, timezone: string, from: string, to: string}} Report
 * @typedef {{title: string, record: (id: string) => string, report: string,
 *   name: (r: any) => string, back: (id: string) => string, backLabel: string,
 *   messages?: (id: string) => string}} Kind
 */

/** @type {Record<string, Kind>} */
const KINDS = {
  campaigns: {
    title: 'Campaign report',
    record: (id) => `/campaigns/${encodeURIComponent(id)}`,
    report: 'campaigns',
    name: (c) => c.name,
    back: () => '#/campaigns',
    backLabel: 'Campaigns',
    messages: (id) => link('/messages', { campaignId: id }),
  },
  jobs: {
    title: 'Send report',
    record: (id) => `/jobs/${encodeURIComponent(id)}`,
    report: 'jobs',
    name: (j) => `${j.campaignId ? 'Campaign send' : 'Send'} of ${when(j.created?.at)}`,
    back: (id) => `#/jobs/${encodeURIComponent(id)}`,
    backLabel: 'The job',
    messages: (id) => link('/messages', { jobId: id }),
  },
  drips: {
    title: 'Drip campaign report',
    record: (id) => `/dripcampaigns/${encodeURIComponent(id)}`,
    report: 'dripcampaigns',
    name: (d) => d.name,
    back: (id) => `#/drips/${encodeURIComponent(id)}`,
    backLabel: 'The drip campaign',
  },
  workflows: {
    title: 'Workflow report',
    record: (id) => `/workflows/${encodeURIComponent(id)}`,
    report: 'workflows',
    name: (w) => w.name,
    back: (id) => `#/workflows/${encodeURIComponent(id)}`,
    backLabel: 'The workflow',
  },
};

/** The periods offered, in days. */
const PERIODS = [7, 30, 90];

/**
 * A link to a record's report, for the record's own page.
 * @param {'campaigns' | 'jobs' | 'drips' | 'workflows'} kind
 * @param {string} id
 * @param {string} [cls] the link's class: a button by default
 */
export function reportLink(kind, id, cls = 'button secondary') {
  return h('a', { href: `#/reports/${kind}/${encodeURIComponent(id)}`, class: cls }, 'Report');
}

/**
 * #/reports/:kind/:id[?days=7|30|90]
 * @param {HTMLElement} view
 * @param {{params: Record<string, string>, query: URLSearchParams}} ctx
 */
export async function reportPage(view, { params, query }) {
  const kind = KINDS[params.kind];
  if (!kind) {
    view.append(h('h2', {}, 'Not found'), h('p', {}, 'There is no such report.'));
    return;
  }
  view.append(h('h2', {}, kind.title));
  const { period, form, days } = periodControls(query, (q) => go(`/reports/${params.kind}/${params.id}`, q));
  const record = await api('GET', kind.record(params.id));
  if ('error' in period) {
    view.append(h('p', { class: 'report-of' }, h('bdi', { dir: 'auto' }, kind.name(record.data))), form);
    return;
  }
  const path = `/reports/${kind.report}/${encodeURIComponent(params.id)}`;
  const answer = await api('GET', path, { query: period });
  /** @type {Report} */
  const r = answer.data;
  const figures = figureCards(r, r.currency, 'report');
  if (days) figures.dataset.days = String(days);
  view.append(
    h(
      'p',
      { class: 'report-of' },
      h('bdi', { dir: 'auto', 'data-test': 'report-name' }, kind.name(record.data)),
    ),
    h(
      'div',
      { class: 'actions' },
      h('a', { href: kind.back(params.id) }, `‹ ${kind.backLabel}`),
      kind.messages ? h('a', { href: kind.messages(params.id) }, 'Its messages') : null,
      exportButton('Export CSV', `${path}/export`, () => period),
    ),
    form,
    figures,
    h(
      'p',
      { class: 'muted' },
      `${r.queued} message(s) waiting to be dispatched. Days in ${r.timezone}.`,
      params.kind === 'drips' || params.kind === 'workflows'
        ? ' Clicks are counted for campaigns and sends only.'
        : '',
    ),
    barChart(
      r.days,
      [
        ['sent', 'Sent'],
        ['delivered', 'Delivered'],
        ['failed', 'Failed'],
      ],
      'Messages per day',
    ),
    barChart(
      r.days,
      [
        ['replies', 'Replies'],
        ['optOuts', 'Opt-outs'],
        ['clicks', 'Clicks'],
      ],
      'Replies, opt-outs and clicks per day',
    ),
    spendChart(r),
    h('h3', {}, 'Per day'),
    table(
      [
        ['Day', (d) => d.day],
        ['Sent', (d) => String(d.sent)],
        ['Delivered', (d) => String(d.delivered)],
        ['Failed', (d) => String(d.failed)],
        ['Replies', (d) => String(d.replies)],
        ['Opt-outs', (d) => String(d.optOuts)],
        ['Clicks', (d) => String(d.clicks)],
        ['Spend', (d) => money(d.spend, r.currency)],
      ],
      // Newest first, and only the days with something to show.
      r.days.filter((d) => d.sent || d.failed || d.replies || d.optOuts || d.clicks).reverse(),
      'Nothing in this period.',
    ),
  );
}

/** A spend-per-day chart, amounts in the account's currency. @param {Report} r */
function spendChart(r) {
  return barChart(r.days, [['spend', 'Spend']], `Spend per day (${r.currency})`, (v) => money(v, r.currency));
}

/**
 * The period of a report page from its query: `days` (7, 30, 90; 30 by default) or a custom
 * `from` / `to` (days, both included, in the browser's time zone), with the form that changes it
 * (`navigate` gets the new query). An invalid custom period answers `{error}` and the form shows it.
 * @param {URLSearchParams} query
 * @param {(q: Record<string, string>) => void} navigate
 */
export function periodControls(query, navigate) {
  const custom = query.has('from') || query.has('to');
  const days = custom ? 0 : PERIODS.includes(Number(query.get('days'))) ? Number(query.get('days')) : 30;
  const now = new Date();
  /** @type {{from: string, to: string} | {error: string}} */
  const period = custom
    ? periodOf(query.get('from') ?? '', query.get('to') ?? '')
    : { from: new Date(now.getTime() - days * 86_400_000).toISOString(), to: now.toISOString() };
  const start = new Date(now.getTime() - (days || 30) * 86_400_000);
  const from = h('input', {
    type: 'date',
    name: 'from',
    value: query.get('from') ?? isoDay(start),
    max: isoDay(now),
  });
  const to = h('input', { type: 'date', name: 'to', value: query.get('to') ?? isoDay(now) });
  const choice = h(
    'select',
    { name: 'days' },
    PERIODS.map((d) => h('option', { value: String(d), selected: d === days }, `Last ${d} days`)),
    h('option', { value: 'custom', selected: custom }, 'Custom dates'),
  );
  const problem = h('div', {}, ...periodProblem(period));
  // A preset shows at once; the days (filled with the period shown) are applied with Show.
  choice.addEventListener('change', () => {
    if (choice.value !== 'custom') navigate({ days: choice.value });
  });
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit: (e) => {
        e.preventDefault();
        const p = periodOf(from.value, to.value);
        problem.replaceChildren(...periodProblem(p));
        if (!('error' in p)) navigate({ from: from.value, to: to.value });
      },
    },
    field('Period', choice),
    field('From', from),
    field('To', to),
    h('button', { type: 'submit', class: 'secondary' }, 'Show'),
    problem,
  );
  return { period, form, days };
}

/**
 * #/reports[?days=|from=&to=&offset=]: the account's figures for a period, spend per day in its
 * currency, messages per day, and its campaigns side by side (GET …/reports/campaigns), with CSV
 * exports of the report and of the comparison.
 * @param {HTMLElement} view
 * @param {{query: URLSearchParams}} ctx
 */
export async function reportsPage(view, { query }) {
  view.append(h('h2', {}, 'Reports'));
  const keep = () => Object.fromEntries([...query].filter(([k]) => k !== 'offset'));
  const { period, form } = periodControls(query, (q) => go('/reports', q));
  view.append(form);
  if ('error' in period) return;
  const offset = Number(query.get('offset') ?? 0);
  const [summary, compared] = await Promise.all([
    api('GET', '/reports/summary', { query: period }),
    api('GET', '/reports/campaigns', { query: { ...period, offset, limit: 20 } }),
  ]);
  /** @type {Report} */
  const r = summary.data;
  const reportQuery = Object.entries(keep())
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  view.append(
    h(
      'div',
      { class: 'actions' },
      exportButton('Export report (CSV)', '/reports/summary/export', () => period),
      exportButton('Export campaigns (CSV)', '/reports/campaigns/export', () => period),
    ),
    figureCards(r, r.currency, 'reports'),
    h('p', { class: 'muted' }, `Days in ${r.timezone}.`),
    spendChart(r),
    barChart(
      r.days,
      [
        ['sent', 'Sent'],
        ['delivered', 'Delivered'],
        ['failed', 'Failed'],
      ],
      'Messages per day',
    ),
    h('h3', { id: 'compare' }, 'Campaigns compared'),
    h(
      'p',
      { class: 'muted' },
      'The campaigns that sent in this period, latest first. Replies and opt-outs count only what each recipient did after the campaign’s text reached them.',
    ),
    table(
      [
        [
          'Campaign',
          (c) =>
            h(
              'a',
              {
                href: `#/reports/campaigns/${encodeURIComponent(c.campaignId)}${reportQuery ? `?${reportQuery}` : ''}`,
              },
              h('bdi', { dir: 'auto' }, c.name ?? 'Deleted campaign'),
            ),
        ],
        ['First sent', (c) => when(c.firstSentAt)],
        ['Sent', (c) => String(c.sent)],
        ['Delivered', (c) => `${c.delivered}${c.sent ? ` (${Math.round(c.deliveryRate * 100)} %)` : ''}`],
        ['Failed', (c) => String(c.failed)],
        ['Opted out', (c) => String(c.optedOut)],
        ['Replies', (c) => String(c.replies)],
        ['Opt-outs', (c) => String(c.optOuts)],
        ['Clicks', (c) => String(c.clicks)],
        ['Cost', (c) => money(c.spend, c.currency)],
      ],
      compared.data,
      'No campaign sent in this period.',
    ),
    pager(compared.pagination, (o) => go('/reports', { ...keep(), offset: String(o) })),
  );
}
