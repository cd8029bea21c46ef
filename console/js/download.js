// CSV downloads: the export operations answer a file (GET …/export); the page fetches it with the
// access token (a plain link would carry none) and hands it to the browser as a download.
import { api } from './api.js';
import { h } from './dom.js';
import { showError } from './flash.js';

/**
 * Downloads `GET {path}` of the account as the file the API names (Content-Disposition).
 * @param {string} path e.g. '/contacts/export'
 * @param {Record<string, string | number | undefined>} [query]
 */
export async function downloadCsv(path, query) {
  /** @type {Response} */
  const res = await api('GET', path, { query, raw: true });
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * A button that downloads an export; `query` is read when it is pressed (the form's values then).
 * Disabled while the file comes; a failure is shown above the page.
 * @param {string} label
 * @param {string} path
 * @param {() => Record<string, string | number | undefined> | null} [query] null: do not download (the form said why)
 */
export function exportButton(label, path, query = () => ({})) {
  const button = h('button', { type: 'button', class: 'secondary', 'data-test': 'export' }, label);
  button.addEventListener('click', async () => {
    const q = query();
    if (q === null) return;
    button.disabled = true;
    try {
      await downloadCsv(path, q);
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

const DAY_MS = 86_400_000;
/** The longest period a report or an export covers (the API's limit). */
export const MAX_DAYS = 366;

/** 'YYYY-MM-DD' of a date, in the browser's time zone. */
export function isoDay(d) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * A period from two day inputs (YYYY-MM-DD, both days included, in the browser's time zone):
 * `{from, to}` as ISO timestamps, or `{error}` saying what to change.
 * @param {string} fromDay
 * @param {string} toDay
 * @returns {{from: string, to: string} | {error: string}}
 */
export function periodOf(fromDay, toDay) {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (!day.test(fromDay) || !day.test(toDay)) return { error: 'Choose a start and an end day.' };
  const [fy, fm, fd] = fromDay.split('-').map(Number);
  const [ty, tm, td] = toDay.split('-').map(Number);
  const from = new Date(fy, fm - 1, fd);
  const to = new Date(ty, tm - 1, td + 1);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
    return { error: 'Choose a start and an end day.' };
  if (from >= to) return { error: 'The start must be on or before the end.' };
  if (to.getTime() - from.getTime() > MAX_DAYS * DAY_MS + 3_600_000)
    return { error: `Choose at most ${MAX_DAYS} days.` };
  return { from: from.toISOString(), to: to.toISOString() };
}

/**
 * What to show of a period: its error as an alert, or nothing.
 * @param {{from: string, to: string} | {error: string}} period
 */
export function periodProblem(period) {
  return 'error' in period
    ? [h('p', { class: 'flash flash-error', role: 'alert', 'data-test': 'period-error' }, period.error)]
    : [];
}

/**
 * The messages export: a period (the last 7 days to start with), a status and a direction, and
 * its button (GET …/messages/export).
 * @param {string[]} statuses
 */
export function messagesExport(statuses) {
  const today = new Date();
  const from = h('input', {
    type: 'date',
    name: 'exportFrom',
    value: isoDay(new Date(today.getTime() - 6 * DAY_MS)),
    required: true,
  });
  const to = h('input', { type: 'date', name: 'exportTo', value: isoDay(today), required: true });
  const status = h(
    'select',
    { name: 'exportStatus' },
    h('option', { value: '' }, 'Any status'),
    statuses.map((s) => h('option', { value: s }, s)),
  );
  const direction = h(
    'select',
    { name: 'exportDirection' },
    h('option', { value: '' }, 'Sent and received'),
    h('option', { value: 'outbound' }, 'Sent'),
    h('option', { value: 'inbound' }, 'Received'),
  );
  const problem = h('div', {});
  const button = exportButton('Export CSV', '/messages/export', () => {
    const period = periodOf(from.value, to.value);
    problem.replaceChildren(...periodProblem(period));
    if ('error' in period) return null;
    return { ...period, status: status.value, direction: direction.value };
  });
  return h(
    'details',
    { class: 'panel export' },
    h('summary', {}, 'Export messages as CSV'),
    h(
      'div',
      { class: 'inline' },
      h('label', {}, 'From ', from),
      h('label', {}, 'To ', to),
      h('label', {}, 'Status ', status),
      h('label', {}, 'Direction ', direction),
      button,
    ),
    problem,
  );
}
