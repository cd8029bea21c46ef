// Calls: voice calls to the account's numbers with direction, status and duration; one call's
// detail with its recording.
import { api } from '../api.js';
import { badge, choice, field, filterForm, h, nameOf, pager, table, when } from '../dom.js';
import { go } from '../router.js';

const STATUSES = [
  'initiated',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
];

/** #/calls?direction=&status=&offset= */
export async function callsPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const direction = query.get('direction') ?? '';
  const status = query.get('status') ?? '';
  const res = await api('GET', '/calls', { query: { direction, status, offset, limit: 20 } });
  const dir = choice('direction', 'any', ['inbound', 'outbound'], direction);
  const st = choice('status', 'any', STATUSES, status);
  view.append(
    h('h2', {}, 'Calls'),
    filterForm([field('Direction', dir), field('Status', st)], () =>
      go('/calls', { direction: dir.value, status: st.value }),
    ),
    table(
      [
        ['When', (c) => h('a', { href: `#/calls/${encodeURIComponent(c.id)}` }, when(c.created.at))],
        ['Direction', (c) => c.direction],
        ['From', (c) => (c.contact ? nameOf(c.contact) : h('bdi', {}, c.from))],
        ['To', (c) => h('bdi', {}, c.to)],
        ['Status', (c) => badge(c.status)],
        ['Duration', (c) => `${c.duration} s`],
        ['Recording', (c) => (c.recordingUrl ? 'yes' : '—')],
      ],
      res.data,
      'No calls yet.',
    ),
    pager(res.pagination, (o) => go('/calls', { direction, status, offset: o })),
  );
}

/** #/calls/:id */
export async function callPage(view, { params }) {
  const { data: c } = await api('GET', `/calls/${encodeURIComponent(params.id)}`);
  const row = (label, value) => [h('dt', {}, label), h('dd', {}, value)];
  const safeUrl = c.recordingUrl && /^https?:\/\//i.test(c.recordingUrl) ? c.recordingUrl : null;
  view.append(
    h('h2', {}, 'Call'),
    h(
      'dl',
      { class: 'detail' },
      row('Id', h('code', {}, c.id)),
      row('Direction', c.direction),
      row('Status', badge(c.status)),
      row('From', h('bdi', {}, c.from)),
      row(
        'Contact',
        c.contact
          ? h('a', { href: `#/contacts/${encodeURIComponent(c.contact.id)}` }, nameOf(c.contact))
          : '—',
      ),
      row('To', h('bdi', {}, c.to)),
      row('Group', c.group ? h('bdi', {}, c.group.name) : '—'),
      row('Action', c.action),
      c.forwardedTo ? row('Forwarded to', h('bdi', {}, c.forwardedTo)) : null,
      row('Duration', `${c.duration} s`),
      row('Voicemail', c.voicemail ? 'yes' : 'no'),
      row('Started', when(c.created.at)),
      row('Ended', when(c.ended)),
      row(
        'Recording',
        safeUrl
          ? [
              h(
                'a',
                { href: safeUrl, rel: 'noopener noreferrer', target: '_blank', 'data-test': 'recording' },
                'Listen',
              ),
              c.recordingDuration ? ` (${c.recordingDuration} s)` : '',
            ]
          : c.recording
            ? 'recorded'
            : '—',
      ),
      c.transcription ? row('Transcription', h('bdi', {}, c.transcription)) : null,
    ),
    h('p', {}, h('a', { href: '#/calls' }, '‹ All calls')),
  );
}
