// The console shell: sign-in, navigation and the page for the current hash route.
import { ApiError, session, signIn, signOut } from './api.js';
import { h } from './dom.js';
import { bindFlash, clearFlash, showError } from './flash.js';
import { campaignsPage } from './pages/campaigns.js';
import { composePage } from './pages/compose.js';
import { contactPage, contactsPage } from './pages/contacts.js';
import { conversationPage, inboxPage } from './pages/conversations.js';
import { listPage, listsPage } from './pages/lists.js';
import { messagePage, messagesPage } from './pages/messages.js';
import { overviewPage } from './pages/overview.js';
import { templatesPage } from './pages/templates.js';
import { webhookPage, webhooksPage } from './pages/webhooks.js';
import { current, go, match } from './router.js';

const NAV = [
  ['/overview', 'Overview'],
  ['/contacts', 'Contacts'],
  ['/lists', 'Lists'],
  ['/compose', 'Compose'],
  ['/messages', 'Messages'],
  ['/inbox', 'Inbox'],
  ['/templates', 'Templates'],
  ['/campaigns', 'Campaigns'],
  ['/webhooks', 'Webhooks'],
];

const ROUTES = [
  { path: '/overview', page: overviewPage },
  { path: '/contacts', page: contactsPage },
  { path: '/contacts/:id', page: contactPage },
  { path: '/lists', page: listsPage },
  { path: '/lists/:id', page: listPage },
  { path: '/compose', page: composePage },
  { path: '/messages', page: messagesPage },
  { path: '/messages/:id', page: messagePage },
  { path: '/inbox', page: inboxPage },
  { path: '/inbox/:id', page: conversationPage },
  { path: '/templates', page: templatesPage },
  { path: '/campaigns', page: campaignsPage },
  { path: '/webhooks', page: webhooksPage },
  { path: '/webhooks/:id', page: webhookPage },
];

const root = document.getElementById('app');
let main = null;
let nav = null;

/**
 * The sign-in form; `reason` (an error) says why it is shown again, e.g. an expired session, and
 * `previous` (the ended session) fills in the ids.
 */
function signInView(reason, previous) {
  main = null;
  const accountId = h('input', {
    name: 'accountId',
    required: true,
    autocomplete: 'username',
    value: previous?.accountId,
  });
  const clientId = h('input', { name: 'clientId', required: true, value: previous?.clientId });
  const clientSecret = h('input', {
    name: 'clientSecret',
    type: 'password',
    required: true,
    autocomplete: 'current-password',
  });
  const error = h('div', { class: 'flash-area' });
  if (reason) showError(reason, error);
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'signin',
      onsubmit: async (e) => {
        e.preventDefault();
        button.disabled = true;
        error.replaceChildren();
        try {
          await signIn(accountId.value.trim(), clientId.value.trim(), clientSecret.value);
          clientSecret.value = '';
          if (!location.hash) go('/overview');
          shell();
        } catch (err) {
          showError(err, error);
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h1', {}, 'Sparrow console'),
    h('p', {}, 'Sign in with your account id and an API client’s id and secret (npm start prints them).'),
    error,
    h('label', { class: 'field' }, h('span', {}, 'Account id'), accountId),
    h('label', { class: 'field' }, h('span', {}, 'Client id'), clientId),
    h('label', { class: 'field' }, h('span', {}, 'Client secret'), clientSecret),
    button,
  );
  root.replaceChildren(h('main', { class: 'signin-page' }, form));
  (previous ? clientSecret : accountId).focus();
}

function shell() {
  const s = session();
  if (!s) return signInView();
  const flash = h('div', { class: 'flash-area' });
  bindFlash(flash);
  nav = h(
    'nav',
    { class: 'nav' },
    NAV.map(([path, label]) => h('a', { href: `#${path}`, 'data-path': path }, label)),
  );
  main = h('section', { class: 'page' });
  root.replaceChildren(
    h(
      'header',
      { class: 'top' },
      h('strong', { class: 'brand' }, 'Sparrow'),
      h('span', { class: 'who' }, `Account ${s.accountId}`),
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: () => {
            signOut();
            location.hash = '';
            signInView();
          },
        },
        'Sign out',
      ),
    ),
    h('div', { class: 'body' }, nav, h('main', { class: 'content' }, flash, main)),
  );
  route();
}

async function route() {
  if (!session()) return signInView();
  if (!main) return shell();
  const { path, query } = current();
  const found = match(ROUTES, path);
  clearFlash();
  for (const a of nav.querySelectorAll('a')) {
    a.classList.toggle('active', path === a.dataset.path || path.startsWith(`${a.dataset.path}/`));
  }
  // Each navigation renders into a fresh element: a slow answer for a page already left lands in
  // a detached node and is never shown.
  const view = h('div', { class: 'view' });
  main.replaceChildren(view);
  if (!found) {
    view.append(h('h2', {}, 'Not found'), h('p', {}, 'There is no such page.'));
    return;
  }
  try {
    await found.route.page(view, { params: found.params, query });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      const previous = session();
      signOut();
      return signInView(err, previous);
    }
    if (view.isConnected) showError(err);
  }
}

window.addEventListener('hashchange', () => (session() ? route() : signInView()));
shell();
