// Inbox: conversations (one per contact and our number) with unread counts, who each is assigned
// to and whether the contact opted out; the account's saved replies; a thread with its messages, a
// reply box (saved replies inserted), assignment, mark unread and close. Opening a thread marks it
// read.
import { api, session } from '../api.js';
import {
  badge,
  choice,
  field,
  filterForm,
  h,
  isolate,
  nameOf,
  pager,
  table,
  when,
  whileShown,
} from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { messageBox } from '../message-box.js';
import { go } from '../router.js';
import { savedRepliesPanel } from './saved-replies.js';

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

/** A Viewer reads the inbox and changes nothing in it. */
const canChange = () => session()?.role !== 'Viewer';

/**
 * A person's name in words: first and last name, else the e-mail.
 * @param {{ firstName?: string, lastName?: string, email: string }} u
 */
const personName = (u) => [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email;

/**
 * The account's people to assign conversations to ([] when the token may not list them).
 * @returns {Promise<{ id: string, email: string, firstName?: string, lastName?: string }[]>}
 */
async function people() {
  try {
    return (await api('GET', '/users', { query: { limit: 100 } })).data;
  } catch {
    return [];
  }
}

/**
 * The "opted out" marker of a contact who opted out (or is blocked); null otherwise.
 * @param {any} contact
 */
function optedOutMarker(contact) {
  if (contact?.optOut)
    return h(
      'span',
      { class: 'badge badge-failed', title: `Opted out ${when(contact.optOut)}` },
      'opted out',
    );
  if (contact?.blocked) return h('span', { class: 'badge badge-failed' }, 'blocked');
  return null;
}

/** #/inbox?show=open|unread|sent|closed|all&assignee=me|none|<user id>&q=&offset= */
export async function inboxPage(view, { query }) {
  const show = VIEWS.find(([key]) => key === query.get('show')) ?? VIEWS[0];
  const offset = Number(query.get('offset') ?? 0);
  const q = query.get('q') ?? '';
  const assignee = query.get('assignee') ?? '';
  const users = await people();
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
        h(
          'a',
          {
            href: `#/inbox?show=${key}${assignee ? `&assignee=${encodeURIComponent(assignee)}` : ''}`,
            class: key === show[0] ? 'active' : '',
          },
          label,
        ),
      ),
      h('button', { type: 'button', class: 'secondary', onclick: () => load().catch(showError) }, 'Refresh'),
    ),
    filterForm(
      [
        search,
        h(
          'label',
          { class: 'inline-label' },
          'Assigned to ',
          choice(
            'assignee',
            'Anyone',
            [
              ['me', 'Me'],
              ['none', 'Nobody (unassigned)'],
              ...users.map((u) => /** @type {[string, string]} */ ([u.id, personName(u)])),
            ],
            assignee,
            (value) => go('/inbox', { show: show[0], q: search.value.trim(), assignee: value }),
          ),
        ),
      ],
      () => go('/inbox', { show: show[0], q: search.value.trim(), assignee }),
      'Search',
      { role: 'search' },
    ),
    list,
    savedRepliesPanel(canChange()),
  );
  async function load() {
    const res = await api('GET', '/conversations', {
      query: { ...show[2], q, assignee: assignee || undefined, offset, limit: 25 },
    });
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
          ['Opt-out', (c) => optedOutMarker(c.contact) ?? ''],
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
          ['Assigned to', (c) => (c.assignee ? h('bdi', {}, personName(c.assignee)) : '—')],
          ['Updated', (c) => when(c.updated.at)],
        ],
        res.data,
        'No conversations here.',
      ),
      pager(res.pagination, (o) => go('/inbox', { show: show[0], q, assignee, offset: o })),
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
  const writer = canChange();
  const [users, saved] = await Promise.all([
    writer ? people() : Promise.resolve([]),
    api('GET', '/savedreplies', { query: { limit: 100 } })
      .then((r) => r.data)
      .catch(() => []),
  ]);
  const thread = h('div', { class: 'thread' });
  const state = h('span', {});
  const box = messageBox('reply', () => null);
  const send = h('button', { type: 'submit' }, 'Send reply');
  const closeButton = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => close() },
    'Close conversation',
  );
  const unreadButton = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => markUnread() },
    'Mark unread',
  );
  const assigned = h('span', {});
  const assign = writer
    ? choice(
        'assignee',
        'Nobody (unassigned)',
        users.map((u) => /** @type {[string, string]} */ ([u.id, personName(u)])),
        conv.assignee?.id ?? '',
        (value) => reassign(value || null),
      )
    : null;
  assign?.setAttribute('aria-label', 'Assigned to');
  // A saved reply goes in at the cursor; the menu goes back to its prompt.
  const insertSaved = saved.length
    ? h(
        'select',
        {
          name: 'savedReply',
          'aria-label': 'Insert a saved reply',
          onchange: () => {
            const r = saved.find((x) => x.id === insertSaved?.value);
            if (r && insertSaved) {
              const t = box.textarea;
              const at = t.selectionStart ?? t.value.length;
              t.value = `${t.value.slice(0, at)}${r.text}${t.value.slice(t.selectionEnd ?? at)}`;
              t.focus();
              t.selectionStart = t.selectionEnd = at + r.text.length;
              box.update();
              insertSaved.value = '';
            }
          },
        },
        h('option', { value: '' }, 'Insert a saved reply…'),
        saved.map((r) => h('option', { value: r.id }, r.name)),
      )
    : null;

  const drawState = () => {
    state.replaceChildren(
      conv.closed ? badge('closed') : badge('open'),
      ' ',
      optedOutMarker(conv.contact) ?? '',
    );
    closeButton.disabled = conv.closed;
    assigned.replaceChildren(conv.assignee ? h('bdi', {}, personName(conv.assignee)) : 'Nobody');
  };
  async function reassign(/** @type {string | null} */ userId) {
    try {
      conv = (await api('PUT', `/conversations/${id}/assignee`, { json: { userId } })).data;
      drawState();
      showInfo(conv.assignee ? `Assigned to ${isolate(personName(conv.assignee))}.` : 'Unassigned.');
    } catch (err) {
      if (assign) assign.value = conv.assignee?.id ?? '';
      showError(err);
    }
  }
  async function markUnread() {
    try {
      await api('PUT', `/conversations/${id}/unread`);
      showAfterNavigation(`The conversation with ${nameOf(conv.contact)} is unread again.`);
      go('/inbox');
    } catch (err) {
      showError(err);
    }
  }
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
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, nameOf(conv.contact), ' ', state),
      writer ? h('div', { class: 'actions' }, unreadButton, closeButton) : null,
    ),
    h('p', { class: 'muted' }, `${conv.contact.mobile?.number ?? ''} ↔ ${conv.phoneNumber?.number ?? ''}`),
    conv.contact.optOut
      ? h(
          'p',
          { class: 'warn', 'data-test': 'opted-out-note' },
          `${nameOf(conv.contact)} opted out ${when(conv.contact.optOut)}: texts to them are not sent until they text START.`,
        )
      : '',
    h(
      'p',
      { class: 'assignee' },
      assign ? h('label', { class: 'inline-label' }, 'Assigned to ', assign) : ['Assigned to: ', assigned],
    ),
    thread,
    writer
      ? ''
      : h('p', { class: 'muted' }, 'You can read this conversation; your role in this account cannot reply.'),
    h(
      'form',
      {
        class: 'panel reply',
        hidden: !writer,
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
      insertSaved,
      field('Reply', box.textarea),
      box.counter,
      h('div', { class: 'actions' }, send),
    ),
  );
  drawState();
  await load();
  whileShown(thread, 3000, () => load().catch(() => {}));
}
