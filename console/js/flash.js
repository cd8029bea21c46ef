// The message area above each page: errors from the API's envelope, and confirmations.
import { h } from './dom.js';

/** @type {HTMLElement | null} */
let area = null;
/** @type {string | null} */
let pending = null;

/**
 * Binds the flash area to an element of the shell.
 * @param {HTMLElement} el
 */
export function bindFlash(el) {
  area = el;
}

/** Clears the area on navigation, then shows the confirmation left for the next page, if any. */
export function clearFlash() {
  area?.replaceChildren();
  if (pending) showInfo(pending);
  pending = null;
}

/**
 * Leaves a confirmation for the page the console is about to navigate to.
 * @param {string} text
 */
export function showAfterNavigation(text) {
  pending = text;
}

/**
 * Shows an error: the envelope's text and code; a 402 is called out as a balance problem.
 * @param {any} err an ApiError, another Error, or anything thrown
 * @param {HTMLElement | null} [where]
 */
export function showError(err, where = area) {
  if (!where) return;
  const code = err?.code ? ` (${err.code})` : '';
  const lead = err?.status === 402 ? 'Payment required: ' : '';
  // A missing scope said as what it means for a person: their role may look but not change.
  if (err?.code === 'AUTH-004') {
    where.replaceChildren(
      h(
        'div',
        { class: 'flash flash-error', role: 'alert' },
        'You can view this but not change it: your role in this account does not allow it. Ask an administrator if you need to.',
      ),
    );
    return;
  }
  where.replaceChildren(
    h(
      'div',
      { class: `flash flash-error${err?.status === 402 ? ' flash-payment' : ''}`, role: 'alert' },
      `${lead}${err?.message ?? String(err)}${code}`,
    ),
  );
}

/**
 * Shows a confirmation; extra nodes (a link, a secret) may follow the text.
 * @param {string} text
 * @param {...(Node | string)} extra
 */
export function showInfo(text, ...extra) {
  area?.replaceChildren(h('div', { class: 'flash flash-info', role: 'status' }, text, ...extra));
}
