// The navigation's unread count: the Inbox link carries the number of conversations with unread
// inbound messages, polled from GET …/conversations?unread=true (its pagination's totalCount)
// every UNREAD_POLL_MS while the shell is shown, and at once after each navigation. The count is
// the link's `data-unread` attribute, drawn by style.css (a ::after badge), and in its accessible
// name ("Inbox, 3 unread conversations"): the link's own text stays "Inbox".
import { api } from './api.js';

/** How often the count is read again, in ms. */
export const UNREAD_POLL_MS = 5000;

/**
 * Keeps the unread count on the Inbox link of `nav` (an `a[data-path="/inbox"]`) up to date until
 * `nav` leaves the document. A failed read keeps the last count.
 * @param {HTMLElement} nav
 */
export function watchUnread(nav) {
  const link = nav.querySelector('a[data-path="/inbox"]');
  if (!link) return;
  const name = link.textContent ?? 'Inbox';
  const refresh = async () => {
    if (!nav.isConnected) return;
    try {
      const res = await api('GET', '/conversations', { query: { unread: true, limit: 1 } });
      const n = Number(res.pagination?.totalCount ?? 0);
      if (n > 0) {
        link.setAttribute('data-unread', n > 99 ? '99+' : String(n));
        link.setAttribute('aria-label', `${name}, ${n} unread conversation${n === 1 ? '' : 's'}`);
      } else {
        link.removeAttribute('data-unread');
        link.removeAttribute('aria-label');
      }
    } catch {
      // Keep the last count; the next round tries again.
    }
  };
  refresh();
  const timer = setInterval(() => (nav.isConnected ? refresh() : clearInterval(timer)), UNREAD_POLL_MS);
  const onHash = () => (nav.isConnected ? refresh() : window.removeEventListener('hashchange', onHash));
  window.addEventListener('hashchange', onHash);
}
