// The console shell: sign-in, navigation and the page for the current hash route.
import {
  ApiError,
  acceptInvitation,
  invitation,
  resume,
  session,
  signIn,
  signOut,
  switchAccount,
} from './api.js';
import { h } from './dom.js';
import { bindFlash, clearFlash, showError } from './flash.js';
import { current, go, match } from './router.js';
import { NAV, ROUTES } from './site-map.js';
import { watchUnread } from './unread.js';

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
/** @type {HTMLElement | null} */
let main = null;
/** @type {HTMLElement | null} */
let nav = null;

/**
 * The sign-in form (e-mail and password); `reason` (an error) says why it is shown again, e.g. an
 * ended session, and `previous` (the ended session) fills in the e-mail.
 */
function signInView(reason, previous) {
  main = null;
  const email = h('input', {
    name: 'email',
    type: 'email',
    required: true,
    autocomplete: 'username',
    value: previous?.user?.email,
  });
  const password = h('input', {
    name: 'password',
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
          await signIn(email.value.trim(), password.value);
          password.value = '';
          if (!location.hash || location.hash.startsWith('#/accept/')) go('/overview');
          shell();
        } catch (err) {
          showError(err, error);
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h1', {}, 'Sparrow console'),
    h(
      'p',
      {},
      'Sign in with your e-mail and password (the first start of the service prints the first administrator’s).',
    ),
    error,
    h('label', { class: 'field' }, h('span', {}, 'E-mail'), email),
    h('label', { class: 'field' }, h('span', {}, 'Password'), password),
    button,
  );
  root.replaceChildren(h('main', { class: 'signin-page' }, form));
  (previous ? password : email).focus();
}

/** #/accept/{token}: an invitation (or password reset) link. */
async function acceptView(token) {
  main = null;
  const error = h('div', { class: 'flash-area' });
  let info;
  try {
    info = await invitation(token);
  } catch (err) {
    showError(err, error);
    root.replaceChildren(
      h(
        'main',
        { class: 'signin-page' },
        h(
          'div',
          { class: 'signin' },
          h('h1', {}, 'Invitation'),
          error,
          h('a', { href: '#/overview' }, 'Sign in'),
        ),
      ),
    );
    return;
  }
  const first = h('input', { name: 'firstName', autocomplete: 'given-name', maxlength: 100 });
  const last = h('input', { name: 'lastName', autocomplete: 'family-name', maxlength: 100 });
  const password = h('input', {
    name: 'password',
    type: 'password',
    autocomplete: 'new-password',
    minlength: 12,
    maxlength: 128,
    required: true,
  });
  const terms = h('input', { name: 'acceptTerms', type: 'checkbox', required: true });
  const reset = info.kind === 'reset';
  // An invitation offers both ways alike (the page is not told whether the e-mail has a password).
  const choices = ['new', 'existing'].map((value) =>
    h('input', {
      type: 'radio',
      name: 'passwordChoice',
      value,
      checked: value === 'new',
      onchange: () => choose(),
    }),
  );
  const passwordLabel = h('span', {});
  const nameFields = [
    h('label', { class: 'field' }, h('span', {}, 'First name'), first),
    h('label', { class: 'field' }, h('span', {}, 'Last name'), last),
  ];
  const existing = () => !reset && choices[1].checked;
  function choose() {
    passwordLabel.textContent = existing() ? 'Your Sparrow password' : 'Password (12 characters or more)';
    password.setAttribute('autocomplete', existing() ? 'current-password' : 'new-password');
    password.minLength = existing() ? 1 : 12;
    for (const f of nameFields) f.hidden = existing();
  }
  choose();
  const button = h('button', { type: 'submit' }, reset ? 'Set password' : 'Join');
  const form = h(
    'form',
    {
      class: 'signin',
      onsubmit: async (e) => {
        e.preventDefault();
        button.disabled = true;
        error.replaceChildren();
        try {
          const body = { acceptTerms: terms.checked, password: password.value };
          if (existing()) body.hasPassword = true;
          else if (!reset) {
            if (first.value.trim()) body.firstName = first.value.trim();
            if (last.value.trim()) body.lastName = last.value.trim();
          }
          await acceptInvitation(token, body);
          go('/overview');
          shell();
        } catch (err) {
          showError(err, error);
          if (!existing() && !reset && err instanceof ApiError && err.code === 'USER-001')
            error.append(
              h(
                'p',
                {},
                'If this e-mail already has a Sparrow password, choose “I have a Sparrow password” and enter it.',
              ),
            );
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h1', {}, reset ? 'Set a new password' : 'Join Sparrow'),
    h('p', {}, h('bdi', {}, info.email), ` · ${info.role} of `, h('bdi', {}, info.account.name)),
    error,
    reset
      ? null
      : h(
          'fieldset',
          {},
          h('legend', {}, 'Password'),
          h('label', { class: 'check' }, choices[0], h('span', {}, 'I am new to Sparrow: set a password')),
          h(
            'label',
            { class: 'check' },
            choices[1],
            h('span', {}, 'I have a Sparrow password (from another account): enter it'),
          ),
        ),
    ...(reset ? [] : nameFields),
    h('label', { class: 'field' }, passwordLabel, password),
    h('label', { class: 'check' }, terms, h('span', {}, 'I accept the terms of use')),
    button,
  );
  root.replaceChildren(h('main', { class: 'signin-page' }, form));
}

function shell() {
  const s = session();
  if (!s) return signInView();
  const flash = h('div', { class: 'flash-area' });
  bindFlash(flash);
  nav = navigation(s.role);
  main = h('section', { class: 'page' });
  root.replaceChildren(
    h(
      'header',
      { class: 'top' },
      menuButton(nav),
      h('h1', { class: 'brand' }, 'Sparrow'),
      accountSwitcher(s),
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: async () => {
            await signOut();
            location.hash = '';
            signInView();
          },
        },
        'Sign out',
      ),
    ),
    h('div', { class: 'body' }, nav, h('main', { class: 'content' }, flash, main)),
  );
  watchUnread(nav); // console-pages: the Inbox link's unread count.
  route();
}

/**
 * The navigation for a role: each section a labelled list of links. On a narrow screen it is a
 * panel the menu button opens (style.css); a link followed closes it.
 * @param {string} role
 */
function navigation(role) {
  const sections = NAV.map(({ label, entries }, i) => {
    const shown = entries.filter(([, , only]) => !only || only === role);
    if (!shown.length) return null;
    const id = `nav-section-${i}`;
    const links = h(
      'ul',
      label ? { 'aria-labelledby': id } : {},
      shown.map(([path, text]) => h('li', {}, h('a', { href: `#${path}`, 'data-path': path }, text))),
    );
    return h(
      'div',
      { class: 'nav-section' },
      label ? h('h2', { id, class: 'nav-heading' }, label) : null,
      links,
    );
  });
  return h('nav', { id: 'nav', class: 'nav', 'aria-label': 'Main' }, sections);
}

/**
 * The button that opens and closes the navigation on a narrow screen (hidden on a wide one);
 * Escape closes it and gives the focus back to the button.
 * @param {HTMLElement} panel
 */
function menuButton(panel) {
  const button = h(
    'button',
    { type: 'button', class: 'menu-toggle', 'aria-controls': 'nav', 'aria-expanded': 'false' },
    'Menu',
  );
  const set = (open) => {
    panel.classList.toggle('open', open);
    button.setAttribute('aria-expanded', String(open));
  };
  button.addEventListener('click', () => set(!panel.classList.contains('open')));
  // Escape closes it wherever the focus is: on the button right after opening it, too.
  const onKey = (/** @type {KeyboardEvent} */ e) => {
    if (!button.isConnected) return document.removeEventListener('keydown', onKey);
    if (e.key === 'Escape' && panel.classList.contains('open')) {
      set(false);
      button.focus();
    }
  };
  document.addEventListener('keydown', onKey);
  // Any navigation closes it: a link followed, Back or Forward.
  const onNavigate = () => {
    if (!button.isConnected) return window.removeEventListener('hashchange', onNavigate);
    set(false);
  };
  window.addEventListener('hashchange', onNavigate);
  panel.addEventListener('click', (e) => {
    const link = e.target instanceof Element ? e.target.closest('a') : null;
    if (!link) return;
    set(false);
    // The page in view's own link: no hashchange follows, so show the page afresh here.
    if (link.getAttribute('href') === location.hash) {
      e.preventDefault();
      route();
    }
  });
  return button;
}

/** The account in use (and the role there); a menu when the person has several. */
function accountSwitcher(s) {
  const who = `${s.user?.email ?? ''} · ${s.role}`;
  if (!s.accounts || s.accounts.length < 2)
    return h(
      'span',
      { class: 'who', title: `${s.accountName || s.accountId} · ${who}` },
      h('bdi', {}, s.accountName || s.accountId),
      ` · ${who}`,
    );
  const select = h(
    'select',
    {
      'aria-label': 'Account',
      onchange: async () => {
        try {
          await switchAccount(select.value);
          shell();
        } catch (err) {
          showError(err);
        }
      },
    },
    s.accounts.map((a) =>
      h('option', { value: a.id, selected: a.id === s.accountId }, `${a.name} (${a.role})`),
    ),
  );
  return h('span', { class: 'who', title: who }, select, ` · ${who}`);
}

async function route() {
  const accept = /^#\/accept\/([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (accept) return acceptView(accept[1]);
  if (!session() && !(await resume())) return signInView();
  if (!main) return shell();
  const { path, query } = current();
  const found = match(ROUTES, path);
  clearFlash();
  for (const a of nav?.querySelectorAll('a') ?? []) {
    const here = path === a.dataset.path || path.startsWith(`${a.dataset.path}/`);
    a.classList.toggle('active', here);
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
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
      await signOut();
      return signInView(err, previous);
    }
    if (view.isConnected) showError(err);
  }
}

window.addEventListener('hashchange', () => route());
(async () => {
  const accept = /^#\/accept\//.test(location.hash);
  if (!accept && !session()) await resume();
  if (accept || !session()) return route();
  shell();
})();
