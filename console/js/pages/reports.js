// Report of one campaign, send job, drip campaign or workflow: the overview's figures (sent,
// delivered, failed, replies, opt-outs, clicks, spend) for a period, two charts over the days and
// the days as a table, from GET …/reports/{kind}/{id}.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { field, h, money, table, when } from '../dom.js';
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
  const days = PERIODS.includes(Number(query.get('days'))) ? Number(query.get('days')) : 30;
  const to = new Date();
  const from = new Date(to.getTime() - days * 86_400_000);
  view.append(h('h2', {}, kind.title));
  const [record, answer] = await Promise.all([
    api('GET', kind.record(params.id)),
    api('GET', `/reports/${kind.report}/${encodeURIComponent(params.id)}`, {
      query: { from: from.toISOString(), to: to.toISOString() },
    }),
  ]);
  /** @type {Report} */
  const r = answer.data;
  const figures = figureCards(r, r.currency, 'report');
  figures.dataset.days = String(days);
  const period = h(
    'select',
    {
      name: 'days',
      onchange: () => go(`/reports/${params.kind}/${params.id}`, { days: period.value }),
    },
    PERIODS.map((d) => h('option', { value: String(d), selected: d === days }, `Last ${d} days`)),
  );
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
    ),
    h('form', { class: 'inline', onsubmit: (e) => e.preventDefault() }, field('Period', period)),
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
