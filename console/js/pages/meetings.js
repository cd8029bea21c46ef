// Meetings: the agenda of upcoming bookings (by day, with cancel), the meeting event types with
// their availability; create an event type; one event type's settings (lengths, time zone, weekly
// availability, buffer, notice, horizon, active), duplicate, delete, and its own agenda.
import { api } from '../api.js';
import { badge, field, h, isolate, pager, table } from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go } from '../router.js';
import { DAYS, dayEditor } from './groups.js';

/**
 * @typedef {{hour: number, minute: number}} Time
 * @typedef {{start: Time, end: Time}} Range
 * @typedef {{id?: string, email?: string, firstName?: string, lastName?: string,
 *   mobile?: {number: string}}} Person
 * @typedef {{id: string, name: string, description?: string, slug: string, durations: number[],
 *   slotIncrement: number, timezone: string, availability: Record<string, Range[] | undefined>,
 *   bufferMinutes: number, minimumNoticeMinutes: number, bookingHorizonDays: number,
 *   hosts: Person[], active: boolean}} MeetingEvent
 * @typedef {{id: string, name: string, start: string, end: string, status: string,
 *   attendees: Person[], eventId?: string, timezone: string, notes?: string}} Meeting
 */

/** How many days ahead the agenda shows. */
const AGENDA_DAYS = 30;
const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');

/** A person's name (isolated for direction): names, else e-mail, else mobile. */
function personName(/** @type {Person} */ p) {
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ');
  return isolate(name || p.email || p.mobile?.number || '—');
}

/** The availability in a few words: "Mon 09:00–17:00, Tue …". */
function availabilityText(/** @type {MeetingEvent['availability']} */ a) {
  const t = (/** @type {Time} */ x) => `${pad(x.hour)}:${pad(x.minute)}`;
  const parts = DAYS.filter(([key]) => a[key]?.length).map(
    ([key, label]) =>
      `${label.slice(0, 3)} ${(a[key] ?? []).map((r) => `${t(r.start)}–${t(r.end)}`).join(', ')}`,
  );
  return parts.join(' · ') || 'never';
}

/**
 * The agenda: meetings grouped by the reader's day, each with its time, name, attendees, status
 * and a Cancel button while upcoming; `reload` runs after a cancel.
 * @param {Meeting[]} meetings
 * @param {() => void} reload
 */
function agenda(meetings, reload) {
  if (!meetings.length) return h('p', { class: 'empty' }, `No meetings in the next ${AGENDA_DAYS} days.`);
  /** @type {Map<string, Meeting[]>} */
  const byDay = new Map();
  for (const m of meetings) {
    const day = new Date(m.start).toLocaleDateString(undefined, {
      weekday: 'long',
      year: 'numeric',
      month: 'long',
      day: 'numeric',
    });
    byDay.set(day, [...(byDay.get(day) ?? []), m]);
  }
  const time = (/** @type {string} */ iso) =>
    new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const cancel = async (/** @type {Meeting} */ m) => {
    if (!confirm(`Cancel ${isolate(m.name)} at ${time(m.start)}?`)) return;
    try {
      await api('PUT', `/meetings/${encodeURIComponent(m.id)}/cancel`);
      showInfo('Meeting cancelled.');
      reload();
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'div',
    { class: 'agenda', 'data-test': 'agenda' },
    [...byDay].map(([day, ms]) =>
      h(
        'section',
        { class: 'agenda-day' },
        h('h4', {}, day),
        h(
          'ul',
          {},
          ms.map((m) =>
            h(
              'li',
              { class: 'agenda-item', 'data-meeting': m.id },
              h('span', { class: 'agenda-time' }, `${time(m.start)}–${time(m.end)}`),
              ' ',
              h('bdi', { dir: 'auto', class: 'agenda-name' }, m.name),
              ' · ',
              m.attendees.map((p, i) => [i ? ', ' : '', h('bdi', { dir: 'auto' }, personName(p))]),
              m.notes ? [' · ', h('bdi', { dir: 'auto', class: 'muted' }, m.notes)] : null,
              ' ',
              badge(m.status),
              m.status === 'upcoming'
                ? [
                    ' ',
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'link danger',
                        'aria-label': `Cancel ${isolate(m.name)} at ${time(m.start)}`,
                        onclick: () => cancel(m),
                      },
                      'Cancel',
                    ),
                  ]
                : null,
            ),
          ),
        ),
      ),
    ),
  );
}

/** The upcoming meetings of the next AGENDA_DAYS days (of one event type when given). */
async function upcoming(/** @type {string | undefined} */ eventId) {
  const from = new Date();
  const to = new Date(from.getTime() + AGENDA_DAYS * 86_400_000);
  const res = await api('GET', '/meetings', {
    query: {
      from: from.toISOString(),
      to: to.toISOString(),
      status: 'upcoming',
      limit: 100,
      ...(eventId ? { eventId } : {}),
    },
  });
  return /** @type {Meeting[]} */ (res.data);
}

/** Durations typed as "30, 60" → [30, 60] (anything not a number is left out, the API checks the rest). */
const durationsOf = (/** @type {string} */ s) =>
  s
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number)
    .filter((n) => Number.isInteger(n));

/** The reader's IANA time zone, as a default. */
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * #/meetings?offset=
 * @param {HTMLElement} view
 * @param {{query: URLSearchParams}} ctx
 */
export async function meetingsPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const [events, meetings] = await Promise.all([
    api('GET', '/meetingevents', { query: { offset, limit: 20 } }),
    upcoming(undefined),
  ]);
  const agendaBox = h(
    'div',
    {},
    agenda(meetings, () => reloadAgenda()),
  );
  const reloadAgenda = async () => {
    try {
      agendaBox.replaceChildren(agenda(await upcoming(undefined), () => reloadAgenda()));
    } catch (err) {
      showError(err);
    }
  };
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const slug = h('input', { name: 'slug', required: true, pattern: '[a-z0-9\\-]{3,64}', maxlength: 64 });
  const durations = h('input', { name: 'durations', required: true, value: '30', inputmode: 'numeric' });
  const timezone = h('input', { name: 'timezone', required: true, maxlength: 64, value: localZone() });
  const create = async (/** @type {Event} */ e) => {
    e.preventDefault();
    try {
      const { data } = await api('POST', '/meetingevents', {
        json: {
          name: name.value.trim(),
          slug: slug.value.trim(),
          durations: durationsOf(durations.value),
          timezone: timezone.value.trim(),
        },
      });
      showAfterNavigation('Event type created: set its availability below.');
      go(`/meetings/${encodeURIComponent(data.id)}`);
    } catch (err) {
      showError(err);
    }
  };
  view.append(
    h('h2', {}, 'Meetings'),
    h('h3', {}, `Agenda: the next ${AGENDA_DAYS} days`),
    agendaBox,
    h('h3', {}, 'Event types'),
    table(
      [
        [
          'Name',
          (/** @type {MeetingEvent} */ ev) =>
            h('a', { href: `#/meetings/${encodeURIComponent(ev.id)}` }, h('bdi', { dir: 'auto' }, ev.name)),
        ],
        ['Booking slug', (/** @type {MeetingEvent} */ ev) => h('code', {}, ev.slug)],
        ['Lengths', (/** @type {MeetingEvent} */ ev) => ev.durations.map((d) => `${d} min`).join(', ')],
        [
          'Availability',
          (/** @type {MeetingEvent} */ ev) => [availabilityText(ev.availability), ` (${ev.timezone})`],
        ],
        ['Status', (/** @type {MeetingEvent} */ ev) => badge(ev.active ? 'active' : 'disabled')],
      ],
      events.data,
      'No event types yet.',
    ),
    pager(events.pagination, (o) => go('/meetings', { offset: o })),
    h(
      'form',
      { class: 'panel', onsubmit: create },
      h('h3', {}, 'New event type'),
      field('Name', name),
      field(
        'Booking slug',
        slug,
        'Lowercase letters, digits and dashes (3–64): the public booking address names it.',
      ),
      field('Lengths (minutes)', durations, 'One or more, e.g. 30, 60'),
      field('Time zone', timezone, 'IANA name, e.g. Europe/Paris'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create event type')),
    ),
  );
}

/**
 * #/meetings/:id — one event type's settings, its availability per weekday and its agenda.
 * @param {HTMLElement} view
 * @param {{params: Record<string, string>}} ctx
 */
export async function meetingEventPage(view, { params }) {
  const path = `/meetingevents/${encodeURIComponent(params.id)}`;
  const [{ data }, meetings] = await Promise.all([api('GET', path), upcoming(params.id)]);
  /** @type {MeetingEvent} */
  const ev = data;
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: ev.name });
  const description = h('textarea', { name: 'description', maxlength: 2000, rows: 2 }, ev.description ?? '');
  const slug = h('input', {
    name: 'slug',
    required: true,
    pattern: '[a-z0-9\\-]{3,64}',
    maxlength: 64,
    value: ev.slug,
  });
  const durations = h('input', { name: 'durations', required: true, value: ev.durations.join(', ') });
  const increment = h('input', {
    name: 'slotIncrement',
    type: 'number',
    min: 5,
    max: 1440,
    value: String(ev.slotIncrement),
  });
  const timezone = h('input', { name: 'timezone', required: true, maxlength: 64, value: ev.timezone });
  const buffer = h('input', {
    name: 'bufferMinutes',
    type: 'number',
    min: 0,
    max: 1440,
    value: String(ev.bufferMinutes),
  });
  const notice = h('input', {
    name: 'minimumNoticeMinutes',
    type: 'number',
    min: 0,
    value: String(ev.minimumNoticeMinutes),
  });
  const horizon = h('input', {
    name: 'bookingHorizonDays',
    type: 'number',
    min: 1,
    max: 365,
    value: String(ev.bookingHorizonDays),
  });
  const active = h('input', { type: 'checkbox', name: 'active', checked: ev.active });
  const days = DAYS.map(([key, label]) => dayEditor(key, label, ev.availability[key] ?? []));
  const reload = () => go(`/meetings/${encodeURIComponent(ev.id)}`, { t: Date.now() });
  const save = async (/** @type {Event} */ e) => {
    e.preventDefault();
    /** @type {Record<string, Range[]>} */
    const availability = {};
    for (const d of days) availability[d.key] = d.read();
    try {
      await api('PUT', path, {
        json: {
          name: name.value.trim(),
          description: description.value.trim() || null,
          slug: slug.value.trim(),
          durations: durationsOf(durations.value),
          slotIncrement: Number(increment.value),
          timezone: timezone.value.trim(),
          bufferMinutes: Number(buffer.value),
          minimumNoticeMinutes: Number(notice.value),
          bookingHorizonDays: Number(horizon.value),
          active: active.checked,
          availability,
        },
      });
      showAfterNavigation('Event type saved.');
      reload();
    } catch (err) {
      showError(err);
    }
  };
  const duplicate = async () => {
    try {
      const { data: copy } = await api('POST', `${path}/duplicate`);
      showAfterNavigation('Event type duplicated.');
      go(`/meetings/${encodeURIComponent(copy.id)}`);
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the event type ${isolate(ev.name)}? Its meetings stay.`)) return;
    try {
      await api('DELETE', path);
      showAfterNavigation('Event type deleted.');
      go('/meetings');
    } catch (err) {
      showError(err);
    }
  };
  const agendaBox = h('div', {});
  const showAgenda = (/** @type {Meeting[]} */ ms) =>
    agendaBox.replaceChildren(
      agenda(ms, async () => {
        try {
          showAgenda(await upcoming(ev.id));
        } catch (err) {
          showError(err);
        }
      }),
    );
  showAgenda(meetings);
  view.append(
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, 'Event type ', h('bdi', { dir: 'auto' }, ev.name)),
      h('a', { class: 'button secondary', href: '#/meetings' }, 'All meetings'),
    ),
    h(
      'p',
      { class: 'muted' },
      'Booked publicly at ',
      h('code', {}, `/v1/meetingevents/${ev.slug}/book`),
      ' on the public listener. ',
      badge(ev.active ? 'active' : 'disabled'),
    ),
    h('h3', {}, `Agenda: the next ${AGENDA_DAYS} days`),
    agendaBox,
    h(
      'form',
      { class: 'panel', onsubmit: save },
      h('h3', {}, 'Settings'),
      field('Name', name),
      field('Description', description),
      field('Booking slug', slug),
      field('Lengths (minutes)', durations, 'One or more, e.g. 30, 60'),
      field('Minutes between start times', increment),
      field('Time zone', timezone, 'IANA name, e.g. Europe/Paris'),
      field('Free minutes after each meeting', buffer),
      field('Minimum notice (minutes)', notice),
      field('Bookable up to (days ahead)', horizon),
      h('label', { class: 'check' }, active, h('span', {}, 'Active (bookable)')),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Availability (in the event’s time zone)'),
        days.map((d) => d.el),
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Save event type'),
        h('button', { type: 'button', class: 'secondary', onclick: duplicate }, 'Duplicate'),
        h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'),
      ),
    ),
  );
}
