// Routes: which providers carry which destinations (failover routing, docs/routing.md); list,
// create (a prefix, a country or every destination, and providers in order with priority and
// weight, chosen from the server's provider instances), delete.
import { api } from '../api.js';
import { field, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

/**
 * A provider instance a route may name, as the API lists it (`GET …/providers`): the server's own,
 * built in or of its PROVIDERS setting.
 * @typedef {{ name: string, kind: 'simulator' | 'twilio' | 'smpp', builtIn: boolean }} ProviderChoice
 */

/**
 * A route as the API shows it.
 * @typedef {{ id: string, prefix?: string, country?: string, description?: string,
 *   providers: { provider: string, priority: number, weight: number }[],
 *   updated: { at: string } }} Route
 */

/**
 * What a route matches, in words.
 * @param {Route} r
 * @returns {string}
 */
export function destinationOf(r) {
  if (r.prefix) return `numbers starting +${r.prefix}`;
  if (r.country) return `country ${r.country}`;
  return 'every destination';
}

/**
 * #/routes?offset=
 * @param {HTMLElement} view
 * @param {{ query: URLSearchParams }} ctx
 */
export async function routesPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const [res, choices] = await Promise.all([
    api('GET', '/routes', { query: { offset, limit: 20 } }),
    api('GET', '/providers', { query: { limit: 100 } }),
  ]);
  /** @type {Route[]} */
  const routes = res.data;
  /** @type {ProviderChoice[]} */
  const providers = choices.data;
  view.append(
    h('h2', {}, 'Routes'),
    h(
      'p',
      {},
      'Which providers carry a destination, in order: a message refused by one, or whose link is down, ' +
        'moves to the next; within one priority, weights share the messages. The longest matching prefix ' +
        'wins, then the country, then a route for every destination; without one, a message goes through ' +
        'the provider of the number it is sent from.',
    ),
    table(
      [
        ['Destination', (r) => destinationOf(r)],
        [
          'Providers, in order',
          (r) =>
            h(
              'ol',
              { class: 'providers' },
              r.providers.map((p) =>
                h('li', {}, `${p.provider} · priority ${p.priority} · weight ${p.weight}`),
              ),
            ),
        ],
        ['Description', (r) => r.description ?? ''],
        ['Updated', (r) => when(r.updated.at)],
        [
          '',
          (r) =>
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': `Delete the route for ${destinationOf(r)}`,
                onclick: () => remove(r),
              },
              'Delete',
            ),
        ],
      ],
      routes,
      'No routes yet: every message goes through its number’s provider.',
    ),
    pager(res.pagination, (o) => go('/routes', { offset: o })),
    newRouteForm(providers),
  );
}

/** @param {Route} r */
async function remove(r) {
  if (!confirm(`Delete the route for ${destinationOf(r)}?`)) return;
  try {
    await api('DELETE', `/routes/${encodeURIComponent(r.id)}`);
    showAfterNavigation(`The route for ${destinationOf(r)} was deleted.`);
    go('/routes', { t: Date.now() });
  } catch (err) {
    showError(err);
  }
}

/**
 * The form of a new route: what it matches, its providers in order, a description.
 * @param {ProviderChoice[]} choices the provider instances the server has
 */
function newRouteForm(choices) {
  const matches = h(
    'select',
    { name: 'matches' },
    h('option', { value: 'prefix' }, 'Numbers starting with a prefix'),
    h('option', { value: 'country' }, 'A country'),
    h('option', { value: 'all' }, 'Every destination'),
  );
  const prefix = h('input', {
    name: 'prefix',
    inputmode: 'numeric',
    pattern: '\\+?[0-9]{1,15}',
    maxlength: 16,
    placeholder: '4477',
  });
  const country = h('input', {
    name: 'country',
    pattern: '[A-Za-z]{2}',
    maxlength: 2,
    placeholder: 'GB',
    autocomplete: 'off',
  });
  const prefixField = field('Prefix', prefix, 'E.164 digits the destination starts with');
  const countryField = field('Country', country, 'ISO 3166-1 alpha-2 code');
  const showMatch = () => {
    prefixField.hidden = matches.value !== 'prefix';
    countryField.hidden = matches.value !== 'country';
    // A hidden field's value is not sent; emptied, it cannot block the form either.
    if (prefixField.hidden) prefix.value = '';
    if (countryField.hidden) country.value = '';
    prefix.required = matches.value === 'prefix';
    country.required = matches.value === 'country';
  };
  matches.addEventListener('change', showMatch);
  showMatch();
  const providers = providerRows(choices);
  const description = h('input', { name: 'description', maxlength: 200 });
  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    /** @type {Record<string, unknown>} */
    const body = { providers: providers.read() };
    if (matches.value === 'prefix') body.prefix = prefix.value.trim().replace(/^\+/, '');
    if (matches.value === 'country') body.country = country.value.trim().toUpperCase();
    if (description.value.trim()) body.description = description.value.trim();
    try {
      await api('POST', '/routes', { json: body });
      showAfterNavigation('Route created.');
      go('/routes', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'form',
    { class: 'panel', onsubmit: submit },
    h('h3', {}, 'New route'),
    field('Matches', matches),
    prefixField,
    countryField,
    providers.el,
    field('Description', description),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create route')),
  );
}

/**
 * A provider's option text: its name, and its kind where the name does not say it (`carrier-b (smpp)`).
 * @param {ProviderChoice} p
 */
function choiceLabel(p) {
  return p.name === p.kind ? p.name : `${p.name} (${p.kind})`;
}

/**
 * The providers of a new route, one row each (provider, priority, weight), in the order they are
 * tried; add and remove rows (at least one stays). Each row's menu offers the server's instances.
 * @param {ProviderChoice[]} choices
 */
function providerRows(choices) {
  const names = choices.map((p) => p.name);
  const list = h('ol', { class: 'provider-rows' });
  const renumber = () => {
    [...list.children].forEach((row, i) => {
      const n = i + 1;
      const number = row.querySelector('.row-number');
      if (number) number.textContent = `${n}.`;
      const [provider, priority, weight] = row.querySelectorAll('select, input');
      provider.setAttribute('aria-label', `Provider ${n}`);
      priority.setAttribute('aria-label', `Priority of provider ${n}`);
      weight.setAttribute('aria-label', `Weight of provider ${n}`);
      row.querySelector('button')?.setAttribute('aria-label', `Remove provider ${n}`);
    });
  };
  const addRow = (/** @type {string} */ name, priority = 1, weight = 1) => {
    const row = h(
      'li',
      { class: 'inline provider-row' },
      h('span', { class: 'row-number', 'aria-hidden': 'true' }),
      h(
        'select',
        { name: 'provider' },
        choices.map((p) => h('option', { value: p.name, selected: p.name === name }, choiceLabel(p))),
      ),
      h(
        'label',
        {},
        h('span', {}, 'Priority'),
        h('input', { type: 'number', name: 'priority', min: 1, max: 100, required: true, value: priority }),
      ),
      h(
        'label',
        {},
        h('span', {}, 'Weight'),
        h('input', { type: 'number', name: 'weight', min: 0, max: 10000, required: true, value: weight }),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: () => {
            if (list.children.length > 1) row.remove();
            renumber();
          },
        },
        'Remove',
      ),
    );
    list.append(row);
    renumber();
  };
  addRow(names[0]);
  const el = h(
    'fieldset',
    {},
    h('legend', {}, 'Providers, in order (priority: lower first; weight: share within a priority)'),
    list,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          const used = new Set(read().map((p) => p.provider));
          addRow(names.find((p) => !used.has(p)) ?? names[0], list.children.length + 1);
        },
      },
      'Add provider',
    ),
  );
  const read = () =>
    [...list.children].map((row) => {
      const [provider, priority, weight] = /** @type {NodeListOf<HTMLInputElement>} */ (
        row.querySelectorAll('select, input')
      );
      return { provider: provider.value, priority: Number(priority.value), weight: Number(weight.value) };
    });
  return { el, read };
}
