// Groups: the account's sender groups; create, rename, choose their numbers and users (console
// users of the account), office hours per weekday, delete.
import { api } from '../api.js';
import { field, h, isolate, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

export const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
];

/** #/groups?offset= */
export async function groupsPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const res = await api('GET', '/groups', { query: { offset, limit: 20 } });
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  view.append(
    h('h2', {}, 'Groups'),
    table(
      [
        [
          'Name',
          (g) => [
            h('a', { href: `#/groups/${encodeURIComponent(g.id)}` }, isolate(g.name)),
            g.isDefault ? [' ', h('span', { class: 'tag' }, 'default')] : null,
          ],
        ],
        ['Numbers', (g) => g.phoneNumbers.map((n) => n.number).join(', ') || '—'],
        ['Office hours', (g) => (g.officeHours?.active ? `on · ${g.officeHours.timezone}` : 'off')],
        ['Created', (g) => when(g.created.at)],
      ],
      res.data,
      'No groups yet.',
    ),
    pager(res.pagination, (o) => go('/groups', { offset: o })),
    h(
      'form',
      {
        class: 'panel',
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const { data } = await api('POST', '/groups', { json: { name: name.value.trim() } });
            showAfterNavigation('Group created.');
            go(`/groups/${encodeURIComponent(data.id)}`);
          } catch (err) {
            showError(err);
          }
        },
      },
      h('h3', {}, 'New group'),
      field('Name', name),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create group')),
    ),
  );
}

/** #/groups/:id */
export async function groupPage(view, { params }) {
  const path = `/groups/${encodeURIComponent(params.id)}`;
  const [{ data: g }, numbers, people] = await Promise.all([
    api('GET', path),
    api('GET', '/phonenumbers', { query: { limit: 100 } }),
    api('GET', '/users', { query: { limit: 100 } }),
  ]);
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: g.name });
  const inGroup = new Set(g.phoneNumbers.map((n) => n.id));
  const boxes = numbers.data.map((n) => ({
    n,
    box: h('input', { type: 'checkbox', name: 'number', value: n.id, checked: inGroup.has(n.id) }),
  }));
  // The group's users are console users of the account; a mobile given for the group is kept.
  /** @type {Map<string, { mobile?: { number: string, country?: string } }>} */
  const linked = new Map(g.users.map((u) => [u.id, u]));
  const userBoxes = people.data.map((u) => ({
    u,
    box: h('input', { type: 'checkbox', name: 'user', value: u.id, checked: linked.has(u.id) }),
  }));
  const hours = g.officeHours ?? { active: false, timezone: 'UTC', times: {} };
  const active = h('input', { type: 'checkbox', name: 'officeHoursActive', checked: hours.active });
  const timezone = h('input', { name: 'timezone', required: true, maxlength: 64, value: hours.timezone });
  const days = DAYS.map(([key, label]) => dayEditor(key, label, hours.times[key] ?? []));
  const save = async (e) => {
    e.preventDefault();
    const times = {};
    for (const d of days) times[d.key] = d.read();
    const body = {
      name: name.value.trim(),
      phoneNumbers: boxes.filter((b) => b.box.checked).map((b) => ({ id: b.n.id })),
      users: userBoxes
        .filter((b) => b.box.checked)
        .map((b) => {
          const mobile = linked.get(b.u.id)?.mobile;
          return mobile
            ? { id: b.u.id, mobile: { number: mobile.number, country: mobile.country } }
            : { id: b.u.id };
        }),
      officeHours: { active: active.checked, timezone: timezone.value.trim(), times },
    };
    try {
      await api('PUT', path, { json: body });
      showAfterNavigation('Group saved.');
      go(path, { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the group ${isolate(g.name)}?`)) return;
    try {
      await api('DELETE', path);
      showAfterNavigation('Group deleted.');
      go('/groups');
    } catch (err) {
      showError(err);
    }
  };
  view.append(
    h('h2', {}, 'Group ', h('bdi', {}, g.name)),
    h(
      'form',
      { class: 'panel', onsubmit: save },
      field('Name', name),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Numbers (senders)'),
        boxes.length
          ? boxes.map(({ n, box }) =>
              h(
                'label',
                { class: 'check' },
                box,
                h('bdi', {}, n.number),
                n.name ? [' ', h('bdi', {}, n.name)] : null,
              ),
            )
          : h('p', { class: 'empty' }, 'The account holds no numbers.'),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Users (console users of the account)'),
        userBoxes.map(({ u, box }) =>
          h(
            'label',
            { class: 'check' },
            box,
            h('bdi', {}, [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email),
            ` · ${u.role}`,
            u.firstName || u.lastName ? [' · ', h('bdi', {}, u.email)] : null,
          ),
        ),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Office hours'),
        h('label', { class: 'check' }, active, h('span', {}, 'Office hours active')),
        field('Time zone', timezone, 'IANA name, e.g. America/New_York'),
        days.map((d) => d.el),
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Save group'),
        h('a', { class: 'button secondary', href: '#/groups' }, 'Back'),
        g.isDefault ? null : h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'),
      ),
    ),
  );
}

const pad = (n) => String(n).padStart(2, '0');
const toText = (t) => `${pad(t.hour)}:${pad(t.minute)}`;
const fromText = (s) => {
  const [hour, minute] = s.split(':').map(Number);
  return { hour, minute };
};

/** One weekday's open ranges: start and end time inputs per range, add and remove. */
export function dayEditor(key, label, ranges) {
  const list = h('div', { class: 'ranges' });
  const addRange = (r) => {
    const start = h('input', {
      type: 'time',
      required: true,
      name: `${key}-start`,
      value: r ? toText(r.start) : '09:00',
      'aria-label': `${label} opens`,
    });
    const end = h('input', {
      type: 'time',
      required: true,
      name: `${key}-end`,
      value: r ? toText(r.end) : '17:00',
      'aria-label': `${label} closes`,
    });
    const row = h(
      'div',
      { class: 'inline range' },
      start,
      '–',
      end,
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          'aria-label': `Remove these ${label} hours`,
          onclick: () => row.remove(),
        },
        'Remove',
      ),
    );
    list.append(row);
  };
  for (const r of ranges) addRange(r);
  const el = h(
    'div',
    { class: 'day', 'data-day': key },
    h('strong', {}, label),
    list,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'aria-label': `Add hours on ${label}`,
        onclick: () => addRange(),
      },
      'Add hours',
    ),
  );
  const read = () =>
    [...list.querySelectorAll('.range')].map((row) => {
      const [start, end] = row.querySelectorAll('input');
      return { start: fromText(start.value), end: fromText(end.value) };
    });
  return { key, el, read };
}
