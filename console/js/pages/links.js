// Tracked links: short URLs that redirect and count clicks per source and day. List; create (name,
// URL) showing the short URL to copy; a link's sources and its clicks per day; delete.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { copyBox } from '../copy.js';
import { add, field, filterForm, h, isolate, pager, searchInput, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go, link } from '../router.js';

/** #/links?name=&offset= */
export async function linksPage(view, { query }) {
  const nameFilter = query.get('name') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const res = await api('GET', '/links', { query: { name: nameFilter, offset, limit: 20 } });
  const search = searchInput(nameFilter, 'Name or URL contains');
  const name = h('input', { name: 'name', maxlength: 200 });
  const url = h('input', {
    name: 'url',
    type: 'url',
    required: true,
    maxlength: 2048,
    placeholder: 'https://…',
  });
  const button = h('button', { type: 'submit' }, 'Create link');
  const created = h('div', { 'data-test': 'created-link' });
  add(view, [
    h('h2', {}, 'Tracked links'),
    filterForm(search, () => go('/links', { name: search.value.trim() })),
    table(
      [
        ['Name', (l) => h('a', { href: link(`/links/${encodeURIComponent(l.id)}`) }, h('bdi', {}, l.name))],
        ['Short URL', (l) => h('code', {}, l.shortUrl)],
        ['Target', (l) => h('bdi', { class: 'excerpt' }, l.url)],
        ['Clicks', (l) => String(l.clicks)],
        ['Created', (l) => when(l.created.at)],
      ],
      res.data,
      'No tracked links yet.',
    ),
    pager(res.pagination, (o) => go('/links', { name: nameFilter, offset: o })),
    h(
      'form',
      {
        class: 'panel',
        onsubmit: async (e) => {
          e.preventDefault();
          button.disabled = true;
          try {
            const body = { url: url.value.trim() };
            if (name.value.trim()) body.name = name.value.trim();
            const l = (await api('POST', '/links', { json: body })).data;
            // The list above is re-read on the next visit; the new link shows here at once.
            created.replaceChildren(
              h(
                'p',
                {},
                'Created “',
                h('bdi', {}, l.name),
                '”: ',
                h('a', { href: link(`/links/${encodeURIComponent(l.id)}`) }, 'clicks and sources'),
              ),
              copyBox('Short URL', l.shortUrl),
            );
            name.value = '';
            url.value = '';
          } catch (err) {
            showError(err);
          } finally {
            button.disabled = false;
          }
        },
      },
      h('h3', {}, 'New tracked link'),
      field('Name (optional: the URL)', name),
      field('URL', url, 'An absolute http or https address'),
      h('div', { class: 'actions' }, button),
      created,
    ),
  ]);
}

/** #/links/:id?source=&soffset= (the chart shows the last 30 days) */
export async function linkPage(view, { params, query }) {
  const path = `/links/${encodeURIComponent(params.id)}`;
  const soffset = Number(query.get('soffset') ?? 0);
  const start = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  const [l, sources] = await Promise.all([
    api('GET', path).then((r) => r.data),
    api('GET', `${path}/sources`, { query: { offset: soffset, limit: 20 } }),
  ]);
  const chosen = sources.data.find((s) => s.id === query.get('source')) ?? sources.data[0];
  const stats = chosen
    ? await api('GET', `${path}/sources/${encodeURIComponent(chosen.id)}/stats`, {
        query: { start, limit: 100 },
      })
    : null;
  const days = (stats?.data ?? []).map((d) => ({ day: d.date.slice(0, 10), clicks: d.value }));
  const remove = async () => {
    if (
      !confirm(
        `Delete the link “${isolate(l.name)}”? Its short URLs stop working, also in texts already sent.`,
      )
    )
      return;
    try {
      await api('DELETE', path);
      showAfterNavigation('Link deleted.');
      go('/links');
    } catch (err) {
      showError(err);
    }
  };
  const sourceName = (s) =>
    s.type === 'direct'
      ? 'Direct'
      : s.type === 'campaign'
        ? `Campaign ${s.campaign?.id ?? ''}`
        : `Send job ${s.job?.id ?? ''}`;
  add(view, [
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, h('bdi', {}, l.name)),
      h('a', { class: 'button secondary', href: '#/links' }, 'All links'),
    ),
    h(
      'p',
      {},
      'Redirects to ',
      h('bdi', {}, l.url),
      ` · ${l.clicks} click(s) · created ${when(l.created.at)}`,
    ),
    copyBox('Short URL', l.shortUrl),
    h('h3', {}, 'Sources'),
    table(
      [
        [
          'Source',
          (s) =>
            s === chosen
              ? h('strong', {}, sourceName(s))
              : h(
                  'a',
                  { href: link(`/links/${encodeURIComponent(l.id)}`, { source: s.id, soffset }) },
                  sourceName(s),
                ),
        ],
        ['Short URL', (s) => h('code', {}, s.shortUrl)],
        ['Clicks', (s) => String(s.clicks)],
        ['Job', (s) => (s.job ? h('a', { href: link('/messages', { jobId: s.job.id }) }, 'messages') : '—')],
      ],
      sources.data,
    ),
    pager(sources.pagination, (o) => go(`/links/${encodeURIComponent(l.id)}`, { soffset: o })),
    chosen
      ? [
          days.length
            ? barChart(days, [['clicks', 'Clicks']], `Clicks per day (UTC): ${sourceName(chosen)}`)
            : h('p', { class: 'empty' }, 'No days to show.'),
          table(
            [
              ['Day', (d) => d.day],
              ['Clicks', (d) => String(d.clicks)],
            ],
            days.filter((d) => d.clicks > 0),
            'No clicks yet.',
          ),
        ]
      : null,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete link'),
    ),
  ]);
}
