// Numbers: search the inventory and take a number; the account's numbers with provider and
// throughput; rename, change throughput, release.
import { api } from '../api.js';
import { badge, field, filterForm, h, isolate, money, pager, table } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

/** #/numbers?country=&areaCode=&contains=&offset=&status= */
export async function numbersPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const status = query.get('status') === 'released' ? 'released' : 'active';
  const search = {
    country: query.get('country') ?? '',
    areaCode: query.get('areaCode') ?? '',
    contains: query.get('contains') ?? '',
  };
  const searched = query.has('country');
  const [mine, available] = await Promise.all([
    api('GET', '/phonenumbers', { query: { status, offset, limit: 20 } }),
    searched ? api('GET', '/availablephonenumbers', { query: { ...search, limit: 10 } }) : null,
  ]);
  const here = (extra) => go('/numbers', { ...(searched ? search : {}), status, offset, ...extra });
  view.append(
    h('h2', {}, 'Numbers'),
    h(
      'div',
      { class: 'actions' },
      h('a', { href: '#/numbers', class: status === 'active' ? 'active' : null }, 'Held'),
      ' · ',
      h(
        'a',
        { href: '#/numbers?status=released', class: status === 'released' ? 'active' : null },
        'Released',
      ),
    ),
    table(
      [
        ['Number', (n) => h('bdi', {}, n.number)],
        ['Name', (n) => (status === 'active' ? nameInput(n) : h('bdi', {}, n.name ?? ''))],
        ['Type', (n) => n.type],
        ['Provider', (n) => n.provider],
        ['Status', (n) => badge(n.status)],
        ['Groups', (n) => n.groups.map((g) => isolate(g.name)).join(', ')],
        ['Throughput (messages/s)', (n) => (status === 'active' ? throughputInput(n) : String(n.throughput))],
        ['', (n) => (status === 'active' ? actions(n) : '')],
      ],
      mine.data,
      status === 'active' ? 'No phone numbers yet.' : 'No released numbers.',
    ),
    pager(mine.pagination, (o) => here({ offset: o })),
    searchForm(search, available),
  );
}

function nameInput(n) {
  return h('input', {
    name: 'name',
    maxlength: 200,
    value: n.name ?? '',
    'aria-label': `Name of ${n.number}`,
    'data-id': n.id,
  });
}

function throughputInput(n) {
  return h('input', {
    name: 'throughput',
    type: 'number',
    min: 1,
    max: 10000,
    required: true,
    value: String(n.throughput),
    'aria-label': `Throughput of ${n.number}`,
    'data-id': n.id,
  });
}

function actions(n) {
  const save = async (e) => {
    const row = e.target.closest('tr');
    const name = row.querySelector('input[name=name]').value.trim();
    const throughput = Number(row.querySelector('input[name=throughput]').value);
    try {
      await api('PUT', `/phonenumbers/${encodeURIComponent(n.id)}`, {
        json: { name: name || null, throughput },
      });
      showAfterNavigation(`${n.number} saved.`);
      go('/numbers', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const release = async () => {
    if (!confirm(`Release ${n.number}? It leaves its groups and can be taken by anyone.`)) return;
    try {
      await api('DELETE', `/phonenumbers/${encodeURIComponent(n.id)}`);
      showAfterNavigation(`${n.number} was released.`);
      go('/numbers', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'span',
    { class: 'actions' },
    h('button', { type: 'button', onclick: save, 'aria-label': `Save ${n.number}` }, 'Save'),
    h(
      'button',
      { type: 'button', class: 'danger', onclick: release, 'aria-label': `Release ${n.number}` },
      'Release',
    ),
  );
}

function searchForm(search, available) {
  const country = h('input', {
    name: 'country',
    value: search.country || 'US',
    pattern: '[A-Za-z]{2}',
    maxlength: 2,
    required: true,
  });
  const areaCode = h('input', {
    name: 'areaCode',
    value: search.areaCode,
    pattern: '[0-9]{1,6}',
    inputmode: 'numeric',
  });
  const contains = h('input', { name: 'contains', value: search.contains, pattern: '\\+?[0-9*]{1,15}' });
  const take = async (a) => {
    try {
      await api('POST', '/phonenumbers', { json: { number: a.number, provider: a.provider } });
      showAfterNavigation(`${a.number} is yours.`);
      go('/numbers', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'div',
    { class: 'panel' },
    h('h3', {}, 'Find a number'),
    filterForm(
      [
        field('Country', country),
        field('Area code', areaCode),
        field('Contains', contains, '* matches any one digit'),
      ],
      () =>
        go('/numbers', {
          country: country.value.trim().toUpperCase(),
          areaCode: areaCode.value.trim(),
          contains: contains.value.trim(),
        }),
      'Search',
    ),
    available
      ? table(
          [
            ['Number', (a) => h('bdi', {}, a.number)],
            ['Type', (a) => a.type],
            ['Area code', (a) => a.areaCode],
            ['Features', (a) => a.features.join(', ')],
            ['Provider', (a) => a.provider],
            ['Monthly price', (a) => money(a.price, 'USD')],
            [
              '',
              (a) =>
                h(
                  'button',
                  { type: 'button', onclick: () => take(a), 'aria-label': `Buy ${a.number}` },
                  'Buy',
                ),
            ],
          ],
          available.data,
          'No numbers match.',
        )
      : null,
  );
}
