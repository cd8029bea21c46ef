// Autoresponders: automatic replies to inbound texts by keyword or outside a group's office hours;
// list (with stats), create, edit, turn on and off, delete.
import { api } from '../api.js';
import { badge, field, filterForm, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { mergeButtons, messageBox } from '../message-box.js';
import { go, link } from '../router.js';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const pad = (n) => String(n).padStart(2, '0');
const hhmm = (t) => `${pad(t.hour)}:${pad(t.minute)}`;

/** A group's office hours in one line, e.g. "mon 09:00–17:00 · tue … (America/New_York)". */
function describeHours(hours) {
  if (!hours?.active)
    return 'No office hours are kept for this group: an office-hours autoresponder never answers.';
  const days = DAYS.map((d) => {
    const ranges = hours.times?.[d] ?? [];
    return ranges.length ? `${d} ${ranges.map((r) => `${hhmm(r.start)}–${hhmm(r.end)}`).join(', ')}` : null;
  }).filter(Boolean);
  return `Office hours (${hours.timezone}): ${days.length ? days.join(' · ') : 'closed every day'}.`;
}

function describeTrigger(a) {
  return a.trigger.type === 'keywords'
    ? `Keywords: ${a.trigger.keywords.join(', ')}`
    : 'Outside office hours';
}

/** #/autoresponders?active=&groupId=&offset=&edit= */
export async function autorespondersPage(view, { query }) {
  const active = query.get('active') ?? '';
  const groupId = query.get('groupId') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const editing = query.get('edit');
  const [res, groups] = await Promise.all([
    api('GET', '/autoresponders', { query: { active, groupId, offset, limit: 20 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
  ]);
  const current = editing ? (await api('GET', `/autoresponders/${encodeURIComponent(editing)}`)).data : null;
  const reload = () => go('/autoresponders', { active, groupId, offset, t: Date.now() });

  const activeFilter = h(
    'select',
    { name: 'active', 'aria-label': 'Active or inactive' },
    h('option', { value: '' }, 'Active and inactive'),
    h('option', { value: 'true', selected: active === 'true' }, 'Active only'),
    h('option', { value: 'false', selected: active === 'false' }, 'Inactive only'),
  );
  const groupFilter = h(
    'select',
    { name: 'groupId', 'aria-label': 'Group' },
    h('option', { value: '' }, 'Any group'),
    groups.data.map((g) => h('option', { value: g.id, selected: g.id === groupId }, g.name)),
  );
  const toggle = async (a) => {
    try {
      await api('PUT', `/autoresponders/${encodeURIComponent(a.id)}`, { json: { active: !a.active } });
      showAfterNavigation(`“${a.name}” is ${a.active ? 'off' : 'on'}.`);
      reload();
    } catch (err) {
      showError(err);
    }
  };

  view.append(
    h('h2', {}, 'Autoresponders'),
    h(
      'p',
      { class: 'muted' },
      'An automatic reply to inbound texts that contain a keyword (whole word, any case) or that arrive outside ' +
        'a group’s office hours. STOP, START and HELP always win; opted-out and blocked contacts get nothing; a ' +
        'contact is answered at most once per window. Replies are ordinary, charged messages.',
    ),
    filterForm([activeFilter, groupFilter], () =>
      go('/autoresponders', { active: activeFilter.value, groupId: groupFilter.value }),
    ),
    table(
      [
        ['Name', (a) => h('a', { href: link('/autoresponders', { edit: a.id }) }, a.name)],
        ['Trigger', (a) => h('span', { class: 'excerpt' }, describeTrigger(a))],
        ['Group', (a) => a.group?.name ?? 'Every number'],
        ['Reply', (a) => h('span', { class: 'excerpt' }, a.message.message)],
        [
          'Active',
          (a) => [
            badge(a.active ? 'active' : 'disabled'),
            ' ',
            h(
              'button',
              { type: 'button', class: 'link', onclick: () => toggle(a) },
              a.active ? 'Turn off' : 'Turn on',
            ),
          ],
        ],
        [
          'Stats',
          (a) =>
            `${a.stats.triggered} triggered · ${a.stats.repliesSent} sent · ${a.stats.suppressed} suppressed` +
            (a.stats.lastTriggeredAt ? ` · last ${when(a.stats.lastTriggeredAt)}` : ''),
        ],
      ],
      res.data,
      'No autoresponders yet.',
    ),
    pager(res.pagination, (o) => go('/autoresponders', { active, groupId, offset: o })),
    editor(current, groups.data),
  );
}

function editor(a, groups) {
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: a?.name ?? '' });
  const type = h(
    'select',
    { name: 'triggerType' },
    h('option', { value: 'keywords' }, 'Keywords in the text'),
    h(
      'option',
      { value: 'outsideOfficeHours', selected: a?.trigger.type === 'outsideOfficeHours' },
      'Any text outside office hours',
    ),
  );
  const keywords = h('input', {
    name: 'keywords',
    maxlength: 3000,
    value: a?.trigger.keywords?.join(', ') ?? '',
    placeholder: 'hours, opening times, price',
  });
  const group = h(
    'select',
    { name: 'group' },
    h('option', { value: '' }, 'Every number of the account'),
    groups.map((g) => h('option', { value: g.id, selected: g.id === a?.group?.id }, g.name)),
  );
  const hours = h('p', { class: 'muted', 'data-test': 'office-hours' });
  const keywordsField = field('Keywords', keywords, 'Comma-separated; letters, digits and spaces only');
  const sync = () => {
    const byKeywords = type.value === 'keywords';
    keywordsField.hidden = !byKeywords;
    keywords.required = byKeywords;
    const g = groups.find((x) => x.id === group.value);
    hours.hidden = byKeywords;
    hours.textContent = g
      ? describeHours(g.officeHours)
      : 'Choose a group: an office-hours autoresponder uses its group’s office hours.';
  };
  type.addEventListener('change', sync);
  group.addEventListener('change', sync);
  const priority = h('input', {
    name: 'priority',
    type: 'number',
    min: -1000,
    max: 1000,
    step: 1,
    value: a?.priority ?? 0,
  });
  const active = h('input', { type: 'checkbox', name: 'active', checked: a ? a.active : true });
  const box = messageBox('message');
  box.textarea.maxLength = 1600;
  box.textarea.value = a?.message.message ?? '';
  box.update();
  sync();

  const submit = async (e) => {
    e.preventDefault();
    const trigger =
      type.value === 'keywords'
        ? {
            type: 'keywords',
            keywords: keywords.value
              .split(',')
              .map((k) => k.trim())
              .filter(Boolean),
          }
        : { type: 'outsideOfficeHours' };
    const body = {
      name: name.value.trim(),
      group: group.value ? { id: group.value } : null,
      trigger,
      message: { message: box.textarea.value, media: a?.message.media ?? [] },
      priority: Number(priority.value || 0),
      active: active.checked,
    };
    try {
      if (a) {
        await api('PUT', `/autoresponders/${encodeURIComponent(a.id)}`, { json: body });
        showAfterNavigation('Autoresponder saved.');
      } else {
        await api('POST', '/autoresponders', { json: body });
        showAfterNavigation('Autoresponder created.');
      }
      go('/autoresponders', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the autoresponder “${a.name}”?`)) return;
    try {
      await api('DELETE', `/autoresponders/${encodeURIComponent(a.id)}`);
      showAfterNavigation('Autoresponder deleted.');
      go('/autoresponders');
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'form',
    { class: 'panel', onsubmit: submit },
    h('h3', {}, a ? `Edit “${a.name}”` : 'New autoresponder'),
    field('Name', name),
    field('Answers for', group),
    field('Trigger', type),
    keywordsField,
    hours,
    field('Reply', box.textarea, '“Insert” adds a recipient’s name or number where the cursor is'),
    mergeButtons(box.textarea, box.update),
    box.counter,
    field('Priority', priority, 'Higher answers first among matches of the same trigger type'),
    h('label', { class: 'check' }, active, ' Active'),
    a
      ? h(
          'p',
          { class: 'muted' },
          `Triggered ${a.stats.triggered} times · ${a.stats.repliesSent} replies sent · ${a.stats.suppressed} suppressed` +
            (a.stats.lastReplyAt ? ` · last reply ${when(a.stats.lastReplyAt)}` : ''),
        )
      : null,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, a ? 'Save autoresponder' : 'Create autoresponder'),
      a ? h('a', { class: 'button secondary', href: '#/autoresponders' }, 'Cancel') : null,
      a ? h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete') : null,
    ),
  );
}
