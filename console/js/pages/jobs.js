// Jobs: every send and bulk contact operation, with its counts or progress; one job in detail,
// with a cancel button while it can still be stopped.
import { api } from '../api.js';
import { badge, choice, h, isolate, money, pager, refreshWhileMoving, table, when } from '../dom.js';
import { showError, showInfo } from '../flash.js';
import { go } from '../router.js';
import { reportLink } from './reports.js';

const STATUSES = ['scheduled', 'queued', 'sending', 'running', 'completed', 'failed', 'cancelled'];
// Statuses a job may still leave: while one is shown the page refreshes itself.
const MOVING = new Set(['scheduled', 'queued', 'sending', 'running']);
const ACTIONS = {
  delete: 'Delete',
  block: 'Block',
  unblock: 'Unblock',
  optOut: 'Opt out',
  optIn: 'Opt in',
  addToList: 'Add to list',
  removeFromList: 'Remove from list',
  tag: 'Tag',
  untag: 'Untag',
};

/**
 * The account's campaigns and lists by id → name (the first 100 of each), so that jobs name them
 * instead of showing ids; an id not among them stays unnamed.
 * @returns {Promise<{campaigns: Map<string, string>, lists: Map<string, string>}>}
 */
async function names() {
  const [campaigns, lists] = await Promise.all([
    api('GET', '/campaigns', { query: { limit: 100 } }).catch(() => ({ data: [] })),
    api('GET', '/lists', { query: { limit: 100 } }).catch(() => ({ data: [] })),
  ]);
  return {
    campaigns: new Map(campaigns.data.map((c) => [c.id, c.name])),
    lists: new Map(lists.data.map((l) => [l.id, l.name])),
  };
}

/** What a job is, in a few words (its campaign named when known). */
function what(j, known = { campaigns: new Map(), lists: new Map() }) {
  if (j.kind === 'contacts') {
    const extra = j.tags ? ` ${j.tags.join(', ')}` : '';
    return `Contacts: ${ACTIONS[j.action] ?? j.action}${extra}`;
  }
  if (!j.campaignId) return j.status === 'scheduled' ? 'Scheduled send' : 'Send';
  const name = known.campaigns.get(j.campaignId);
  return name ? `Campaign “${isolate(name)}”` : 'Campaign send';
}

/** How far a job is, in a few words. */
function howFar(j) {
  if (j.progress)
    return `${j.progress.done} / ${j.progress.total} done${j.progress.failed ? `, ${j.progress.failed} failed` : ''}`;
  if (!j.counts) return `${j.submitted} recipient(s)${j.failures ? `, ${j.failures} failed` : ''}`;
  const c = j.counts;
  const parts = [
    ['queued', c.queued],
    ['sending', c.sending],
    ['sent', c.sent],
    ['delivered', c.delivered],
    ['undelivered', c.undelivered],
    ['failed', c.failed],
    ['cancelled', c.cancelled],
  ].filter(([, n]) => n > 0);
  return parts.map(([s, n]) => `${n} ${s}`).join(', ') || 'no messages';
}

/**
 * When a send should finish (its `estimatedFinishAt`), in plain words: "Expected to finish in about
 * 5 minutes", "… about 2:05 PM tomorrow", "… about Friday, November 28, 9:00 AM".
 * @param {string} iso
 * @param {Date} [now]
 */
export function finishWords(iso, now = new Date()) {
  const at = new Date(iso);
  const seconds = (at.getTime() - now.getTime()) / 1000;
  if (seconds < 60) return 'Expected to finish within a minute';
  if (seconds < 3600) {
    const minutes = Math.round(seconds / 60);
    return `Expected to finish in about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const time = at.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
  const tomorrow = new Date(now);
  tomorrow.setDate(now.getDate() + 1);
  if (at.toDateString() === now.toDateString()) return `Expected to finish about ${time} today`;
  if (at.toDateString() === tomorrow.toDateString()) return `Expected to finish about ${time} tomorrow`;
  const date = at.toLocaleDateString([], { weekday: 'long', month: 'long', day: 'numeric' });
  return `Expected to finish about ${date}, ${time}`;
}

/** #/jobs?kind=&status=&offset= */
export async function jobsPage(view, { query }) {
  const filters = { kind: query.get('kind') ?? '', status: query.get('status') ?? '' };
  const offset = Number(query.get('offset') ?? 0);
  const kinds = /** @type {[string, string][]} */ ([
    ['send', 'Sends'],
    ['contacts', 'Contact operations'],
  ]);
  const kind = choice('kind', 'Any kind', kinds, filters.kind, (v) => go('/jobs', { ...filters, kind: v }));
  const status = choice('status', 'Any status', STATUSES, filters.status, (v) =>
    go('/jobs', { ...filters, status: v }),
  );
  const list = h('div', {});
  view.append(
    h('h2', {}, 'Jobs'),
    h(
      'div',
      { class: 'inline' },
      h('label', {}, 'Kind ', kind),
      h('label', {}, 'Status ', status),
      h('button', { type: 'button', class: 'secondary', onclick: () => load().catch(showError) }, 'Refresh'),
    ),
    list,
  );
  const known = await names();
  async function load() {
    const res = await api('GET', '/jobs', { query: { ...filters, offset, limit: 25 } });
    list.replaceChildren(
      table(
        [
          ['When', (j) => h('a', { href: `#/jobs/${encodeURIComponent(j.id)}` }, when(j.created.at))],
          ['What', (j) => what(j, known)],
          ['Status', (j) => badge(j.status)],
          ['Progress', (j) => howFar(j)],
          ['Price', (j) => (j.kind === 'send' ? money(j.price) : '')],
        ],
        res.data,
        'No jobs match.',
      ),
      pager(res.pagination, (o) => go('/jobs', { ...filters, offset: o })),
    );
    return res.data.some((j) => MOVING.has(j.status));
  }
  await refreshWhileMoving(list, load);
}

/** #/jobs/:id */
export async function jobPage(view, { params }) {
  const body = h('div', {});
  view.append(h('h2', {}, 'Job'), body);
  const path = `/jobs/${encodeURIComponent(params.id)}`;
  const known = await names();

  function render(j) {
    const row = (label, value) => [h('dt', {}, label), h('dd', {}, value ?? '—')];
    const cancel = MOVING.has(j.status)
      ? h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: async () => {
              if (!confirm('Cancel this job? What is not done yet will not be done.')) return;
              try {
                render((await api('PUT', `${path}/cancel`)).data);
                showInfo('Job cancelled.');
              } catch (err) {
                showError(err);
              }
            },
          },
          'Cancel job',
        )
      : null;
    const counts = j.counts
      ? table(
          [
            ['Status', ([s]) => badge(s)],
            ['Messages', ([, n]) => String(n)],
          ],
          Object.entries(j.counts),
        )
      : null;
    const progress = j.progress
      ? h('progress', { max: String(Math.max(1, j.progress.total)), value: String(j.progress.done) })
      : null;
    body.replaceChildren(
      h(
        'dl',
        { class: 'facts' },
        row('What', what(j, known)),
        j.campaignId && known.campaigns.has(j.campaignId)
          ? row(
              'Campaign',
              h(
                'a',
                { href: `#/reports/campaigns/${encodeURIComponent(j.campaignId)}` },
                h('bdi', {}, known.campaigns.get(j.campaignId)),
              ),
            )
          : null,
        row('Status', badge(j.status)),
        row('Progress', [progress, ' ', howFar(j)]),
        j.estimatedFinishAt
          ? row('Finish', h('span', { class: 'eta' }, finishWords(j.estimatedFinishAt)))
          : null,
        j.progress ? row('Changed', String(j.progress.changed)) : null,
        j.kind === 'send' ? row('Recipients', String(j.submitted)) : null,
        j.kind === 'send' ? row('Price', money(j.price)) : null,
        j.listId
          ? row(
              'List',
              h(
                'a',
                { href: `#/lists/${encodeURIComponent(j.listId)}` },
                h('bdi', {}, known.lists.get(j.listId) ?? 'a list'),
              ),
            )
          : null,
        j.sendAt ? row('Sends at', when(j.sendAt)) : null,
        j.error ? row('Error', `${j.error.description} (${j.error.code})`) : null,
        j.invalid.length ? row('Not taken', `${j.invalid.length} (invalid numbers or unknown ids)`) : null,
        row('Created', when(j.created.at)),
        j.cancelled ? row('Cancelled', when(j.cancelled.at)) : null,
        row('Id', j.id),
      ),
      counts ?? '',
      h(
        'div',
        { class: 'actions' },
        j.kind === 'send'
          ? h(
              'a',
              { class: 'button secondary', href: `#/messages?jobId=${encodeURIComponent(j.id)}` },
              'Messages',
            )
          : null,
        j.kind === 'send' ? reportLink('jobs', j.id) : null,
        cancel,
      ),
    );
  }

  const load = async () => {
    const j = (await api('GET', path)).data;
    render(j);
    return MOVING.has(j.status);
  };
  await refreshWhileMoving(body, load);
}
