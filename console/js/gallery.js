// A list page with a gallery of templates under it (lead forms, workflows): the list filtered by
// name and paged, then "Start from a template" with a search and a pager of its own; the route's
// query holds both places (?name=&offset=&q=&toffset=).
import { api } from './api.js';
import { filterForm, h, pager, searchInput } from './dom.js';
import { go } from './router.js';

const TEMPLATES_PER_PAGE = 6;

/**
 * Where a list-and-gallery page is (from its query), with the page of the list at `listPath` and
 * the page of templates at `templatesPath`.
 * @param {URLSearchParams} query
 * @param {string} listPath
 * @param {string} templatesPath
 */
export async function listWithTemplates(query, listPath, templatesPath) {
  const state = {
    name: query.get('name') ?? '',
    offset: Number(query.get('offset') ?? 0),
    q: query.get('q') ?? '',
    toffset: Number(query.get('toffset') ?? 0),
  };
  const [list, templates] = await Promise.all([
    api('GET', listPath, { query: { name: state.name, offset: state.offset, limit: 20 } }),
    api('GET', templatesPath, { query: { q: state.q, offset: state.toffset, limit: TEMPLATES_PER_PAGE } }),
  ]);
  return { state, list, templates };
}

/** @typedef {{ name: string, offset: number, q: string, toffset: number }} GalleryState */

/**
 * The list's "Name contains" filter and, under the list, its pager.
 * @param {string} route the page's route (`/forms`)
 * @param {GalleryState} state
 */
export function nameFilter(route, state) {
  const search = searchInput(state.name, 'Name contains');
  return filterForm(search, () => go(route, { ...state, name: search.value.trim(), offset: 0 }));
}

/**
 * The list's pager.
 * @param {string} route
 * @param {GalleryState} state
 * @param {any} pagination
 */
export function listPager(route, state, pagination) {
  return pager(pagination, (o) => go(route, { ...state, offset: o }));
}

/**
 * The "Start from a template" panel: its search, a card per template (or a note that none
 * matches) and its pager.
 * @param {string} route
 * @param {GalleryState} state
 * @param {{ data: any[], pagination?: any }} templates
 * @param {(template: any) => Element} card
 * @param {{ testId: string, label: string }} opts the panel's data-test and the search box's name
 */
export function templateGallery(route, state, templates, card, { testId, label }) {
  const search = searchInput(state.q, 'Search templates', { 'aria-label': label });
  return h(
    'section',
    { class: 'panel', 'data-test': testId },
    h('h3', {}, 'Start from a template'),
    filterForm(search, () => go(route, { ...state, q: search.value.trim(), toffset: 0 }), 'Search'),
    templates.data.length
      ? h('div', { class: 'cards' }, templates.data.map(card))
      : h('p', { class: 'empty' }, 'No template matches.'),
    pager(templates.pagination, (o) => go(route, { ...state, toffset: o })),
  );
}

/**
 * A template's card: what it is, a name for what it makes (the template's name to start with) and
 * "Use this template", which calls use(name, button) (the button disabled meanwhile).
 * @param {any} t the template
 * @param {string} label the name box's accessible name
 * @param {import('./dom.js').Child} details
 * @param {(name: string, button: HTMLButtonElement) => Promise<void>} use
 */
export function templateCard(t, label, details, use) {
  const name = h('input', {
    name: 'name',
    required: true,
    maxlength: 200,
    value: t.name,
    'aria-label': label,
  });
  const button = h('button', { type: 'submit' }, 'Use this template');
  return h(
    'form',
    {
      class: 'card template-card',
      'data-template': t.id,
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        button.disabled = true;
        use(name.value.trim(), button);
      },
    },
    h('h4', {}, h('bdi', {}, t.name)),
    t.category ? h('span', { class: 'tag' }, t.category) : null,
    t.description ? h('p', {}, t.description) : null,
    details,
    name,
    h('div', { class: 'actions' }, button),
  );
}
