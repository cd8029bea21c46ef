// The navigation's unread count: the Inbox link carries the number of conversations with unread
// inbound messages, polled from GET …/conversations?unread=true (its pagination's totalCount)
// every UNREAD_POLL_MS while the shell is shown, and at once after each navigation.
import { api } from './api.js';
import { h } from './dom.js';

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
  const badge = h('span', { class: 'count nav-count', 'data-test': 'unread-count', hidden: true });
  const label = h('span', { class: 'visually-hidden' });
  link.append(' ', badge, label);
  const refresh = async () => {
    if (!nav.isConnected) return;
    try {
      const res = await api('GET', '/conversations', { query: { unread: true, limit: 1 } });
      const n = Number(res.pagination?.totalCount ?? 0);
      badge.textContent = n > 99 ? '99+' : String(n);
      badge.hidden = n === 0;
      // Read with the link's name: "Inbox, 3 unread conversations".
      label.textContent = n ? `, ${n} unread conversation${n === 1 ? '' : 's'}` : '';
      badge.setAttribute('aria-hidden', 'true');
    } catch {
      // Keep the last count; the next round tries again.
    }
  };
  refresh();
  const timer = setInterval(() => (nav.isConnected ? refresh() : clearInterval(timer)), UNREAD_POLL_MS);
  const onHash = () => (nav.isConnected ? refresh() : window.removeEventListener('hashchange', onHash));
  window.addEventListener('hashchange', onHash);
}
