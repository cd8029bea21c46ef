// DOM helpers. Every value is inserted as text or as an attribute value, never parsed as HTML:
// data from the API (names, messages, URLs) cannot inject markup or script.

/**
 * What h() and add() take as children: nodes, text (numbers become text), nested arrays; null,
 * undefined and false are skipped.
 * @typedef {Node | string | number | boolean | null | undefined | Child[]} Child
 */

/**
 * Builds an element: h('a', {href: '#/x', class: 'c', onclick: fn}, 'text', child, [more]).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [props] attributes; `on…` functions become listeners
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) {
      if (typeof value === 'function')
        el.addEventListener(key.slice(2).toLowerCase(), /** @type {EventListener} */ (value));
    } else if (key === 'class') el.className = String(value);
    else if (key === 'value') /** @type {HTMLInputElement} */ (el).value = String(value);
    else if (key === 'checked' || key === 'selected') el[key] = Boolean(value);
    else if (key !== 'style') el.setAttribute(key, value === true ? '' : String(value));
  }
  add(el, children);
  return el;
}

/**
 * Appends children: nodes as they are, anything else as a text node; null/false are skipped.
 * @template {Element} E
 * @param {E} el
 * @param {Child} children
 * @returns {E}
 */
export function add(el, children) {
  for (const child of /** @type {unknown[]} */ ([children]).flat(Number.POSITIVE_INFINITY)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * A timestamp in the reader's locale, or an em dash.
 * @param {string | null | undefined} iso
 */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/**
 * User text isolated for direction: wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE, so a
 * right-to-left name, or one carrying an override character (U+202E), cannot reorder the text
 * around it, wherever the string goes (a cell, a heading, a confirm() dialog).
 */
/** @param {unknown} text */
export function isolate(text) {
  return `\u2068${text}\u2069`;
}

/**
 * A contact's display name (isolated): first and last name, else the mobile, else the email.
 * @param {any} contact a contact as the API shows it, or null
 */
export function nameOf(contact) {
  if (!contact) return '—';
  const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ');
  return isolate(name || contact.mobile?.number || contact.email || contact.id);
}

/**
 * A money amount with two to four decimals.
 * @param {number | string | null | undefined} amount
 * @param {string} [currency]
 */
export function money(amount, currency = '') {
  const n = Number(amount ?? 0);
  return `${n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 })} ${currency}`.trim();
}

/**
 * A table: columns are [heading, cell(row) → node or text]; an empty list shows `empty`. Under
 * 640 px each row is shown as a card, each cell under its heading (style.css): nothing is hidden
 * in a sideways scroll. It stays focusable (a keyboard can scroll a wide table on a tablet).
 */
/**
 * @template T
 * @param {[heading: string, cell: (row: T) => Child][]} columns
 * @param {T[]} rows
 * @param {string} [empty]
 */
export function table(columns, rows, empty = 'Nothing here yet.') {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h(
    'table',
    { tabindex: 0 },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        // A column without a heading (its row's buttons) has an empty cell, not an empty header.
        columns.map(([heading]) => (heading ? h('th', { scope: 'col' }, heading) : h('td', {}))),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          // Each cell carries its column's heading: under 640 px a row is a card whose cells
          // show their heading beside them (style.css), nothing hidden in a sideways scroll.
          columns.map(([heading, cell]) => h('td', { 'data-label': heading || null }, cell(row))),
        ),
      ),
    ),
  );
}

/**
 * A labelled form field around an input, select or textarea.
 * @param {string} label
 * @param {Child} control
 * @param {Child} [hint]
 */
export function field(label, control, hint) {
  return h('label', { class: 'field' }, h('span', {}, label), control, hint ? h('small', {}, hint) : null);
}

/**
 * A status word as a coloured badge (the class is derived from a fixed set, not from data).
 * @param {string} text
 */
export function badge(text) {
  const known = [
    'queued',
    'sending',
    'sent',
    'delivered',
    'undelivered',
    'failed',
    'received',
    'active',
    'disabled',
    'pending',
    'succeeded',
    'draft',
    'scheduled',
    'running',
    'paused',
    'completed',
    'open',
    'closed',
  ];
  const kind = known.includes(text) ? text : 'other';
  return h('span', { class: `badge badge-${kind}` }, text);
}

/**
 * Previous / next buttons for a collection's pagination; go(offset) moves.
 * @param {{ offset: number, limit: number, hasNext: boolean, totalCount: number } | null | undefined} pagination
 * @param {(offset: number) => void} go
 */
export function pager(pagination, go) {
  // One page holds everything: no buttons to show. An empty element, never null: pages pass the
  // pager to append(), which would show null as the text "null".
  if (!pagination || (pagination.offset === 0 && !pagination.hasNext))
    return h('div', { class: 'pager', hidden: true });
  const { offset, limit, hasNext, totalCount } = pagination;
  const first = totalCount === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, totalCount);
  return h(
    'div',
    { class: 'pager' },
    h(
      'button',
      { type: 'button', disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)) },
      '‹ Previous',
    ),
    h('span', {}, `${first}–${last} of ${totalCount}`),
    h('button', { type: 'button', disabled: !hasNext, onclick: () => go(offset + limit) }, 'Next ›'),
  );
}

/**
 * Re-runs fn every ms while el is in the document (live views); stops once it is replaced.
 * @param {Element} el
 * @param {number} ms
 * @param {() => unknown} fn
 */
export function whileShown(el, ms, fn) {
  const timer = setInterval(() => {
    if (!el.isConnected) clearInterval(timer);
    else fn();
  }, ms);
}

/**
 * A search box for a list's filter, its accessible name the placeholder unless given.
 * @param {string} value
 * @param {string} placeholder
 * @param {Record<string, unknown>} [props] more attributes (`aria-label`, `name`, `maxlength`)
 */
export function searchInput(value, placeholder, props = {}) {
  return h('input', { type: 'search', value, placeholder, 'aria-label': placeholder, ...props });
}

/**
 * The inline form above a list: its controls and one submit button; submitting calls submit()
 * (which usually navigates to the filtered list) instead of posting the form.
 * @param {Child} controls
 * @param {() => void} submit
 * @param {string} [button]
 * @param {Record<string, unknown>} [props] more attributes of the form (`role: 'search'`)
 */
export function filterForm(controls, submit, button = 'Filter', props = {}) {
  return h(
    'form',
    {
      class: 'inline',
      ...props,
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        submit();
      },
    },
    controls,
    h('button', { type: 'submit' }, button),
  );
}

/**
 * A select of `values` with a first option "any" (value ''), `selected` chosen; a change calls
 * change(value).
 * @param {string} name
 * @param {string} any the first option's text
 * @param {(string | [value: string, label: string])[]} values
 * @param {string} selected
 * @param {(value: string) => void} [change]
 */
export function choice(name, any, values, selected, change) {
  const select = h(
    'select',
    { name, onchange: change ? () => change(select.value) : undefined },
    h('option', { value: '' }, any),
    values.map((v) => {
      const [value, label] = typeof v === 'string' ? [v, v] : v;
      return h('option', { value, selected: value === selected }, label);
    }),
  );
  return select;
}

/**
 * Shows what load() shows, and while it answers true (something shown may still change: a job
 * running, a message on its way) loads again every ms, until el leaves the document. A failed
 * reload leaves the last answer shown; the next one tries again. The first load's failure throws.
 * @param {Element} el
 * @param {() => Promise<boolean>} load
 * @param {number} [ms]
 */
export async function refreshWhileMoving(el, load, ms = 2000) {
  const refresh = async () => {
    if (!el.isConnected) return;
    let moving = true;
    try {
      moving = await load();
    } catch {
      // Keep the last answer; try again.
    }
    if (moving) setTimeout(refresh, ms);
  };
  if (await load()) setTimeout(refresh, ms);
}
