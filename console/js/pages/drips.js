// Drip campaigns: a trigger, then messages in order, each a delay after the previous one. List with
// status and stats; create / edit the sequence; activate / deactivate; delete; executions of one.
import { api } from '../api.js';
import {
  add,
  badge,
  field,
  filterForm,
  h,
  isolate,
  nameOf,
  pager,
  searchInput,
  table,
  when,
} from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go, link } from '../router.js';
import { reportLink } from './reports.js';

const STATS = [
  ['entered', 'Entered'],
  ['active', 'Active'],
  ['engaged', 'Engaged'],
  ['noAction', 'No action'],
  ['optOut', 'Opted out'],
  ['errored', 'Errored'],
];

function delayText(d) {
  if (!d) return '—';
  const parts = [d.days && `${d.days} d`, d.hours && `${d.hours} h`, d.minutes && `${d.minutes} min`].filter(
    Boolean,
  );
  return parts.length ? parts.join(' ') : 'at once';
}

function triggerText(t) {
  if (t.type === 'keyword') return ['Keyword ', h('bdi', {}, t.message ?? '')];
  if (t.type === 'list') return ['Joins list ', h('bdi', {}, t.list?.name ?? t.list?.id ?? '')];
  return 'A contact is created';
}

function statsText(s) {
  return STATS.map(([k, label]) => `${label} ${s?.[k] ?? 0}`).join(' · ');
}

/** #/drips?name=&offset=&edit= */
export async function dripsPage(view, { query }) {
  const nameFilter = query.get('name') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const editing = query.get('edit');
  const [res, lists, current] = await Promise.all([
    api('GET', '/dripcampaigns', { query: { name: nameFilter, offset, limit: 20 } }),
    api('GET', '/lists', { query: { limit: 100 } }),
    editing ? api('GET', `/dripcampaigns/${encodeURIComponent(editing)}`).then((r) => r.data) : null,
  ]);
  const search = searchInput(nameFilter, 'Name contains');
  add(view, [
    h('h2', {}, 'Drip campaigns'),
    filterForm(search, () => go('/drips', { name: search.value.trim() })),
    table(
      [
        ['Name', (d) => h('a', { href: link(`/drips/${encodeURIComponent(d.id)}`) }, h('bdi', {}, d.name))],
        ['Trigger', (d) => triggerText(d.trigger)],
        ['Messages', (d) => String(d.messages.length)],
        ['Status', (d) => badge(d.active ? 'active' : 'disabled')],
        ['Executions', (d) => statsText(d.stats)],
      ],
      res.data,
      'No drip campaigns yet.',
    ),
    pager(res.pagination, (o) => go('/drips', { name: nameFilter, offset: o })),
    editor(current, lists.data),
  ]);
}

function stepRow(step, index, remove, only) {
  const num = (label, value, max) =>
    h('input', {
      type: 'number',
      min: 0,
      max,
      value: String(value ?? 0),
      'aria-label': `Message ${index + 1}: ${label}`,
      class: 'short',
    });
  const text = h('textarea', {
    required: true,
    maxlength: 1600,
    rows: 2,
    'aria-label': `Message ${index + 1}: text`,
  });
  text.value = step?.message ?? '';
  const days = num('delay in days', step?.delay?.days, 365);
  const hours = num('delay in hours', step?.delay?.hours, 8760);
  const minutes = num('delay in minutes', step?.delay?.minutes, 525600);
  const el = h(
    'fieldset',
    { class: 'step', 'data-step': String(index) },
    h('legend', {}, `Message ${index + 1}`),
    text,
    h(
      'div',
      { class: 'inline' },
      h('span', {}, index === 0 ? 'Sent after entry +' : 'Sent after the previous +'),
      days,
      'd',
      hours,
      'h',
      minutes,
      'min',
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', onclick: remove, disabled: only },
      `Remove message ${index + 1}`,
    ),
  );
  const value = () => {
    const out = {
      message: text.value,
      delay: {
        days: Number(days.value) || 0,
        hours: Number(hours.value) || 0,
        minutes: Number(minutes.value) || 0,
      },
    };
    if (step?.id) out.id = step.id;
    return out;
  };
  return { el, value };
}

function editor(d, lists) {
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: d?.name ?? '' });
  const type = h(
    'select',
    { name: 'triggerType' },
    [
      ['contact-created', 'A contact is created'],
      ['keyword', 'A contact texts a keyword'],
      ['list', 'A contact joins a list'],
    ].map(([v, label]) => h('option', { value: v, selected: d?.trigger.type === v }, label)),
  );
  const keyword = h('input', { name: 'keyword', maxlength: 200, value: d?.trigger.message ?? '' });
  const list = h(
    'select',
    { name: 'listId' },
    h('option', { value: '' }, '—'),
    lists
      .filter((l) => !l.filter)
      .map((l) => h('option', { value: l.id, selected: d?.trigger.list?.id === l.id }, isolate(l.name))),
  );
  let steps = (d?.messages ?? [{ message: '', delay: { days: 0, hours: 0, minutes: 0 } }]).map((m) => ({
    ...m,
  }));
  let rows = [];
  const box = h('div', { class: 'steps' });
  const draw = () => {
    steps = rows.length ? rows.map((r) => r.value()) : steps;
    rows = steps.map((s, i) =>
      stepRow(
        s,
        i,
        () => {
          steps = rows.map((r) => r.value()).filter((_, j) => j !== i);
          rows = [];
          draw();
        },
        steps.length === 1,
      ),
    );
    box.replaceChildren(...rows.map((r) => r.el));
  };
  draw();
  const addStep = () => {
    steps = [...rows.map((r) => r.value()), { message: '', delay: { days: 1, hours: 0, minutes: 0 } }];
    rows = [];
    draw();
  };
  const submit = async (e) => {
    e.preventDefault();
    const trigger = { type: type.value };
    if (type.value === 'keyword') trigger.message = keyword.value.trim();
    if (type.value === 'list') trigger.listId = list.value || null;
    const body = { name: name.value.trim(), trigger, messages: rows.map((r) => r.value()) };
    try {
      const res = d
        ? await api('PUT', `/dripcampaigns/${encodeURIComponent(d.id)}`, { json: body })
        : await api('POST', '/dripcampaigns', { json: body });
      showAfterNavigation(
        d ? 'Drip campaign saved.' : 'Drip campaign created (inactive: activate it to start entries).',
      );
      go(`/drips/${encodeURIComponent(res.data.id)}`);
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'form',
    { class: 'panel', onsubmit: submit },
    h('h3', {}, d ? ['Edit “', h('bdi', {}, d.name), '”'] : 'New drip campaign'),
    field('Name', name),
    field('Trigger', type),
    field('Keyword (keyword trigger)', keyword, 'One word; STOP, START, HELP and the like are refused'),
    field('List (list trigger)', list),
    box,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', onclick: addStep }, 'Add message'),
      h('button', { type: 'submit' }, d ? 'Save drip campaign' : 'Create drip campaign'),
      d ? h('a', { class: 'button secondary', href: '#/drips' }, 'Cancel') : null,
    ),
  );
}

/** #/drips/:id?x= (x: the execution's offset) */
export async function dripPage(view, { params, query }) {
  const path = `/dripcampaigns/${encodeURIComponent(params.id)}`;
  const x = Number(query.get('x') ?? 0);
  const d = (await api('GET', path)).data;
  /** @type {any} */
  let execution = null;
  // A drip nobody entered has no execution to show: asking would be a 404 on every view.
  if (d.stats?.entered)
    try {
      execution = await api('GET', `${path}/executions`, { query: { offset: x } });
    } catch (err) {
      if (/** @type {any} */ (err).code !== 'DRIP-002') throw err;
    }
  const act = async (activate) => {
    try {
      if (activate) await api('PUT', path, { json: { activate: true } });
      else await api('PUT', `${path}/deactivate`);
      showAfterNavigation(
        activate ? 'Drip campaign activated: contacts enter it now.' : 'Drip campaign deactivated.',
      );
      go(`/drips/${encodeURIComponent(d.id)}`, { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the drip campaign “${isolate(d.name)}” with its executions?`)) return;
    try {
      await api('DELETE', path);
      showAfterNavigation('Drip campaign deleted.');
      go('/drips');
    } catch (err) {
      showError(err);
    }
  };
  const e = execution?.data;
  add(view, [
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, h('bdi', {}, d.name)),
      h('a', { class: 'button secondary', href: '#/drips' }, 'All drip campaigns'),
    ),
    h(
      'p',
      {},
      badge(d.active ? 'active' : 'disabled'),
      ' · ',
      triggerText(d.trigger),
      ` · first message ${delayText(d.trigger.delay)} after entry`,
    ),
    h('p', { class: 'muted', 'data-test': 'drip-stats' }, statsText(d.stats)),
    table(
      [
        ['#', (m) => String(d.messages.indexOf(m) + 1)],
        ['Message', (m) => h('span', { class: 'excerpt' }, h('bdi', {}, m.message))],
        ['Delay', (m) => delayText(m.delay)],
        ['Stats', (m) => statsText(m.stats)],
      ],
      d.messages,
    ),
    h(
      'div',
      { class: 'actions' },
      d.active
        ? h('button', { type: 'button', class: 'secondary', onclick: () => act(false) }, 'Deactivate')
        : h('button', { type: 'button', onclick: () => act(true) }, 'Activate'),
      h('a', { class: 'button secondary', href: link('/drips', { edit: d.id }) }, 'Edit'),
      reportLink('drips', d.id),
      h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'),
    ),
    h(
      'section',
      { class: 'panel' },
      h('h3', {}, 'Executions'),
      e
        ? h(
            'dl',
            { class: 'details' },
            h('dt', {}, 'Contact'),
            h(
              'dd',
              {},
              h('a', { href: link(`/contacts/${encodeURIComponent(e.contact.id)}`) }, nameOf(e.contact)),
            ),
            h('dt', {}, 'Status'),
            h('dd', {}, badge(e.status)),
            h('dt', {}, 'Entered'),
            h('dd', {}, when(e.entered)),
            h('dt', {}, 'Messages sent'),
            h('dd', {}, String(e.stepsSent)),
            h('dt', {}, e.ended ? 'Ended' : 'Next step due'),
            h('dd', {}, when(e.ended ?? e.due)),
            e.error
              ? [h('dt', {}, 'Error'), h('dd', {}, `${e.error.description ?? ''} (${e.error.code})`)]
              : null,
          )
        : h('p', { class: 'empty' }, 'No executions yet.'),
      pager(execution?.pagination, (o) => go(`/drips/${encodeURIComponent(d.id)}`, { x: o })),
    ),
  ]);
}
