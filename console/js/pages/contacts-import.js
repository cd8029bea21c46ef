// Import contacts from a CSV file on the contacts page (POST …/contacts/imports): the file is
// staged at once, a worker imports it chunk by chunk, and a progress bar follows it (polled) up
// to the result: counts and the rows that failed, with their lines; then the page's list is drawn
// again (`imported`), so the new contacts show without a reload.
import { api } from '../api.js';
import { field, h, table } from '../dom.js';
import { showError, showInfo } from '../flash.js';

/** How often the import is asked for its progress. */
const POLL_MS = 500;

/**
 * The import form; its result area shows the import's progress, then its counts and row errors,
 * and `imported` is called once an import has ended (to show the contacts it made).
 * @param {() => Promise<void>} [imported]
 * @returns {HTMLFormElement}
 */
export function importForm(imported) {
  const file = h('input', { type: 'file', name: 'csv', accept: '.csv,text/csv', required: true });
  const strategy = h(
    'select',
    { name: 'mergeStrategy' },
    h('option', { value: '' }, 'Report duplicates as errors'),
    h('option', { value: 'append' }, 'Merge into existing (append)'),
    h('option', { value: 'core' }, 'Update core fields (core)'),
    h('option', { value: 'remove' }, 'Replace existing (remove)'),
  );
  const consent = consentFields();
  const submit = h('button', { type: 'submit' }, 'Import');
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const chosen = file.files?.[0];
        if (!chosen) return;
        result.replaceChildren();
        submit.disabled = true;
        try {
          const body = new FormData();
          body.append('file', chosen, chosen.name);
          const started = (
            await api('POST', '/contacts/imports', {
              form: body,
              query: { mergeStrategy: strategy.value, ...consent.query() },
            })
          ).data;
          if ((await follow(started, result)) && imported) await imported();
        } catch (err) {
          showError(err);
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h3', {}, 'Import contacts (CSV)'),
    h(
      'p',
      { class: 'muted' },
      'A header row with a mobile column; firstName, lastName, email, country and tags (split on ;) are read, other columns become attributes. ' +
        'Rows with a bad value are skipped and listed; the others are imported.',
    ),
    field('File', file),
    field('Duplicates', strategy),
    consent.el,
    submit,
    result,
  );
  return form;
}

/**
 * How the import records consent: not at all, from a yes/no column of the file (with an optional
 * column of dates), or as one statement for the whole file ("These people agreed … on …, by …").
 * `query()` answers the import's consent parameters (empty ones are left out by api()).
 */
function consentFields() {
  const mode = h(
    'select',
    { name: 'consentMode' },
    h('option', { value: '' }, 'Do not record consent'),
    h('option', { value: 'column' }, 'A column of the file says who agreed (yes / no)'),
    h('option', { value: 'statement' }, 'Everyone in the file agreed'),
  );
  const column = h('input', { name: 'consentColumn', maxlength: 200, placeholder: 'e.g. SMS consent' });
  const atColumn = h('input', { name: 'consentAtColumn', maxlength: 200, placeholder: 'e.g. Consent date' });
  const text = h('textarea', {
    name: 'consentText',
    rows: 2,
    maxlength: 1000,
    placeholder: 'e.g. Yes, text me offers from Kim Flowers.',
  });
  const date = h('input', { name: 'consentDate', type: 'date' });
  const method = h('input', {
    name: 'consentMethod',
    maxlength: 200,
    placeholder: 'e.g. the paper sign-up sheet at our shop',
  });
  const columnPart = h(
    'div',
    { class: 'consent-column' },
    field('Consent column', column, 'Its header; rows with yes are recorded, no or empty are not'),
    field('Date column (optional)', atColumn, 'When each person agreed; empty: the time of the import'),
  );
  const statementPart = h(
    'div',
    { class: 'consent-statement' },
    h(
      'p',
      { class: 'muted' },
      'These people agreed to receive texts from us on the date below, by the way below.',
    ),
    field('Agreed on', date),
    field('By', method, 'How they agreed'),
  );
  const textField = field('What they agreed to', text, 'The words they saw; kept with each contact');
  const draw = () => {
    columnPart.hidden = mode.value !== 'column';
    statementPart.hidden = mode.value !== 'statement';
    textField.hidden = mode.value === '';
    date.required = method.required = text.required = mode.value === 'statement';
    column.required = mode.value === 'column';
  };
  mode.addEventListener('change', draw);
  draw();
  const el = h(
    'fieldset',
    { class: 'import-consent' },
    h('legend', {}, 'Consent to receive texts'),
    field('Consent', mode),
    columnPart,
    statementPart,
    textField,
  );
  return {
    el,
    query: () => {
      const t = text.value.trim();
      if (mode.value === 'column')
        return { consentColumn: column.value.trim(), consentAtColumn: atColumn.value.trim(), consentText: t };
      if (mode.value === 'statement')
        return { consentText: t, consentDate: date.value, consentMethod: method.value.trim() };
      return {};
    },
  };
}

/**
 * Shows an import's progress in `area`, asking for it every POLL_MS until it ends (or the area
 * leaves the page), then its result; answers whether it showed one.
 * @param {any} imp the import as POST answered it
 * @param {HTMLElement} area
 * @returns {Promise<boolean>}
 */
async function follow(imp, area) {
  const label = h('label', { for: `import-${imp.id}` }, '');
  const bar = h('progress', {
    id: `import-${imp.id}`,
    max: String(Math.max(imp.counts.total, 1)),
    value: '0',
  });
  area.replaceChildren(h('div', { class: 'import-progress' }, label, bar));
  for (;;) {
    const c = imp.counts;
    bar.max = Math.max(c.total, 1);
    bar.value = c.processed;
    label.textContent = `${imp.status === 'queued' ? 'Waiting to start' : 'Importing'}: ${c.processed} of ${c.total} rows`;
    if (imp.status === 'completed' || imp.status === 'failed' || !area.isConnected) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
    imp = (await api('GET', `/contacts/imports/${encodeURIComponent(imp.id)}`)).data;
  }
  if (!area.isConnected) return false;
  showResult(imp, area, label);
  return true;
}

/**
 * @param {any} imp an import that ended
 * @param {HTMLElement} area
 * @param {HTMLElement} label
 */
function showResult(imp, area, label) {
  const c = imp.counts;
  const summary = `${c.total} row(s), ${c.created} created, ${c.updated} updated, ${c.failed} failed.`;
  if (imp.status === 'failed') {
    label.textContent = `Import stopped after ${c.processed} of ${c.total} rows`;
    showError(new Error(`Import stopped: ${imp.error?.description ?? 'unknown reason'} ${summary}`));
  } else {
    label.textContent = `Import complete: ${c.processed} of ${c.total} rows`;
    showInfo(`Import done: ${summary}`);
  }
  area.append(
    table(
      [
        ['Line', (x) => String(x.line)],
        ['Row', (x) => String(x.row)],
        ['Mobile', (x) => x.mobile ?? ''],
        ['Error', (x) => `${x.error.description} (${x.error.code})`],
      ],
      imp.errors,
      'Every row was imported.',
    ),
  );
  if (c.failed > imp.errors.length)
    area.append(
      h('p', { class: 'muted' }, `The first ${imp.errors.length} of ${c.failed} failed rows are listed.`),
    );
}
