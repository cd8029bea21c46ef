// Inbox: conversations (one per contact and our number) with unread counts; a thread with its
// messages, a reply box and a close button. Opening a thread marks it read.
import { api } from '../api.js';
import { badge, field, filterForm, h, nameOf, pager, table, when, whileShown } from '../dom.js';
import { showError, showInfo } from '../flash.js';
import { go } from '../router.js';
import { messageBox } from './compose.js';

// "Open" holds conversations: threads where the contact wrote at least once. The threads a bulk
// send opens and nobody answered are under "Sent only".
/** @type {[key: string, label: string, filter: Record<string, boolean>][]} */
const VIEWS = [
  ['open', 'Open', { closed: false, replied: true }],
  ['unread', 'Unread', { unread: true }],
  ['sent', 'Sent only', { closed: false, replied: false }],
  ['closed', 'Closed', { closed: true }],
  ['all', 'All', {}],
];

/** #/inbox?show=open|unread|sent|closed|all&q=&offset= */
export async function inboxPage(view, { query }) {
  const show = VIEWS.find(([key]) => key === query.get('show')) ?? VIEWS[0];
  const offset = Number(query.get('offset') ?? 0);
  const q = query.get('q') ?? '';
  const list = h('div', {});
  const search = h('input', {
    type: 'search',
    value: q,
    placeholder: 'Name, number or e-mail',
    'aria-label': 'Search conversations',
    maxlength: 100,
  });
  view.append(
    h('h2', {}, 'Inbox'),
    h(
      'div',
      { class: 'tabs' },
      VIEWS.map(([key, label]) =>
        h('a', { href: `#/inbox?show=${key}`, class: key === show[0] ? 'active' : '' }, label),
      ),
      h('button', { type: 'button', class: 'secondary', onclick: () => load().catch(showError) }, 'Refresh'),
    ),
    filterForm(search, () => go('/inbox', { show: show[0], q: search.value.trim() }), 'Search', {
      role: 'search',
    }),
    list,
  );
  async function load() {
    const res = await api('GET', '/conversations', { query: { ...show[2], q, offset, limit: 25 } });
    list.replaceChildren(
      table(
        [
          [
            'Contact',
            (c) =>
              h(
                'a',
                { href: `#/inbox/${encodeURIComponent(c.id)}`, class: c.unread.length ? 'unread' : '' },
                h('bdi', {}, nameOf(c.contact)),
                c.unread.length
                  ? h('span', { class: 'count', 'aria-label': 'unread messages' }, String(c.unread.length))
                  : null,
              ),
          ],
          [
            'Last message',
            (c) =>
              h(
                'span',
                { class: 'excerpt' },
                c.lastMessage ? `${c.lastMessage.outgoing ? 'You: ' : ''}${c.lastMessage.message}` : '',
              ),
          ],
          ['Our number', (c) => c.phoneNumber?.number ?? '—'],
          ['State', (c) => (c.closed ? 'closed' : 'open')],
          ['Updated', (c) => when(c.updated.at)],
        ],
        res.data,
        'No conversations here.',
      ),
      pager(res.pagination, (o) => go('/inbox', { show: show[0], q, offset: o })),
    );
  }
  await load();
  // New texts arrive without anyone asking: look again every 5 s while the inbox is shown.
  whileShown(list, 5000, () => load().catch(() => {}));
}

/** #/inbox/:id */
export async function conversationPage(view, { params }) {
  const id = encodeURIComponent(params.id);
  let conv = (await api('GET', `/conversations/${id}`)).data;
  // Opening marks it read, a change: a Viewer may not make it, and still reads the thread.
  if (conv.unread.length)
    try {
      conv = (await api('PUT', `/conversations/${id}/read`)).data;
    } catch (err) {
      if (/** @type {any} */ (err)?.code !== 'AUTH-004') throw err;
    }
  const thread = h('div', { class: 'thread' });
  const state = h('span', {});
  const box = messageBox('reply', () => null);
  const send = h('button', { type: 'submit' }, 'Send reply');
  const closeButton = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => close() },
    'Close conversation',
  );

  const drawState = () => {
    state.replaceChildren(conv.closed ? badge('closed') : badge('open'));
    closeButton.disabled = conv.closed;
  };
  async function load() {
    const res = await api('GET', '/messages', { query: { conversationId: conv.id, limit: 100 } });
    thread.replaceChildren(
      ...res.data
        .slice()
        .reverse()
        .map((m) =>
          h(
            'div',
            { class: `bubble ${m.outgoing ? 'out' : 'in'}` },
            h('p', {}, m.message),
            h('small', {}, `${when(m.created.at)} · `, badge(m.status)),
          ),
        ),
    );
    if (!res.data.length) thread.append(h('p', { class: 'empty' }, 'No messages yet.'));
  }
  async function close() {
    try {
      conv = (await api('PUT', `/conversations/${id}/close`)).data;
      drawState();
      showInfo('Conversation closed.');
    } catch (err) {
      showError(err);
    }
  }
  view.append(
    h('div', { class: 'titlebar' }, h('h2', {}, nameOf(conv.contact), ' ', state), closeButton),
    h('p', { class: 'muted' }, `${conv.contact.mobile?.number ?? ''} ↔ ${conv.phoneNumber?.number ?? ''}`),
    thread,
    h(
      'form',
      {
        class: 'panel reply',
        onsubmit: async (e) => {
          e.preventDefault();
          send.disabled = true;
          try {
            const res = await api('POST', '/messages', {
              json: { conversations: [conv.id], template: box.textarea.value },
            });
            if (res.data.failed) {
              const why = res.data.messages.find((m) => m.error)?.error;
              showError(
                new Error(`The reply was not sent${why ? `: ${why.description} (${why.code})` : '.'}`),
              );
            } else {
              box.textarea.value = '';
              box.update();
              showInfo('Reply sent.');
            }
            await load();
          } catch (err) {
            showError(err);
          } finally {
            send.disabled = false;
          }
        },
      },
      field('Reply', box.textarea),
      box.counter,
      h('div', { class: 'actions' }, send),
    ),
  );
  drawState();
  await load();
  whileShown(thread, 3000, () => load().catch(() => {}));
}
