// Messages: the account's messages, newest first, filtered by status (and by job or contact when
// reached from a send or a contact), and one message in detail.
import { api } from '../api.js';
import { badge, choice, h, money, nameOf, pager, refreshWhileMoving, table, when } from '../dom.js';
import { messagesExport } from '../download.js';
import { showError } from '../flash.js';
import { go } from '../router.js';

const STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received'];
// Statuses a message may still leave: while any is shown the list refreshes itself.
const MOVING = new Set(['queued', 'sending', 'sent']);

/** #/messages?status=&jobId=&contactId=&offset= */
export async function messagesPage(view, { query }) {
  const filters = {
    status: query.get('status') ?? '',
    jobId: query.get('jobId') ?? '',
    contactId: query.get('contactId') ?? '',
    conversationId: query.get('conversationId') ?? '',
  };
  const offset = Number(query.get('offset') ?? 0);
  const status = choice('status', 'Any status', STATUSES, filters.status, (v) =>
    go('/messages', { ...filters, status: v }),
  );
  const narrowed = [
    filters.jobId && 'one send',
    filters.contactId && 'one contact',
    filters.conversationId && 'one conversation',
  ].filter(Boolean);
  const list = h('div', {});
  view.append(
    h('h2', {}, 'Messages'),
    h(
      'div',
      { class: 'inline' },
      h('label', {}, 'Status ', status),
      narrowed.length
        ? h(
            'span',
            { class: 'muted' },
            `Showing ${narrowed.join(', ')} · `,
            h('a', { href: '#/messages' }, 'show all'),
          )
        : null,
      h('button', { type: 'button', class: 'secondary', onclick: () => load().catch(showError) }, 'Refresh'),
    ),
    messagesExport(STATUSES),
    list,
  );
  async function load() {
    const res = await api('GET', '/messages', { query: { ...filters, offset, limit: 25 } });
    list.replaceChildren(
      table(
        [
          ['When', (m) => h('a', { href: `#/messages/${encodeURIComponent(m.id)}` }, when(m.created.at))],
          ['', (m) => (m.outgoing ? '→' : '←')],
          ['Contact', (m) => nameOf(m.contact)],
          ['Text', (m) => h('span', { class: 'excerpt' }, m.message)],
          ['Status', (m) => badge(m.status)],
          ['Segments', (m) => String(m.segments)],
          ['Price', (m) => money(m.price)],
        ],
        res.data,
        'No messages match.',
      ),
      pager(res.pagination, (o) => go('/messages', { ...filters, offset: o })),
    );
    return res.data.some((m) => MOVING.has(m.status));
  }
  // While a shown message may still change status, look again every 2 s (until the page is left).
  await refreshWhileMoving(list, load);
}

/** #/messages/:id */
export async function messagePage(view, { params }) {
  const m = (await api('GET', `/messages/${encodeURIComponent(params.id)}`)).data;
  const row = (label, value) => [h('dt', {}, label), h('dd', {}, value ?? '—')];
  view.append(
    h('h2', {}, m.outgoing ? 'Outgoing message' : 'Incoming message'),
    h('blockquote', { class: 'sms' }, m.message),
    h(
      'dl',
      { class: 'facts' },
      row('Status', badge(m.status)),
      row(
        'Contact',
        m.contact
          ? h('a', { href: `#/contacts/${encodeURIComponent(m.contact.id)}` }, nameOf(m.contact))
          : null,
      ),
      row('Contact mobile', m.contact?.mobile?.number),
      row('Our number', m.phoneNumber),
      row(
        'Conversation',
        m.conversation
          ? h('a', { href: `#/inbox/${encodeURIComponent(m.conversation.id)}` }, 'Open the thread')
          : null,
      ),
      row('Template', m.template),
      row('Encoding', m.encoding),
      row('Segments', String(m.segments)),
      row('Price', money(m.price)),
      row('Error', m.error ? `${m.error.description} (${m.error.code})` : null),
      row(
        'Job',
        m.jobId ? h('a', { href: `#/messages?jobId=${encodeURIComponent(m.jobId)}` }, m.jobId) : null,
      ),
      row('Campaign', m.campaignId),
      row('Created', when(m.created.at)),
      row('Updated', when(m.updated.at)),
      row('Id', m.id),
    ),
  );
}
