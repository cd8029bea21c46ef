// Compliance: the account's 10DLC brand and campaign registrations and toll-free verifications as
// the carrier or registry knows them (ids, state, numbers or group covered, caps granted), recorded
// here (…/compliance/registrations); registering goes through the carrier. And help with the
// opt-out and help texts every marketing message must make possible.
import { api } from '../api.js';
import { add, badge, field, h, table } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go, link } from '../router.js';

const KINDS = [
  ['10dlc-brand', '10DLC brand'],
  ['10dlc-campaign', '10DLC campaign'],
  ['toll-free-verification', 'Toll-free verification'],
];
const STATUSES = ['draft', 'submitted', 'pending', 'approved', 'rejected', 'suspended'];
const kindName = (k) => KINDS.find(([v]) => v === k)?.[1] ?? k;

/** #/compliance?edit= */
export async function compliancePage(view, { query }) {
  const editId = query.get('edit');
  const [regs, numbers, groups, editing] = await Promise.all([
    api('GET', '/compliance/registrations', { query: { limit: 100 } }),
    api('GET', '/phonenumbers', { query: { limit: 100 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
    editId ? api('GET', `/compliance/registrations/${encodeURIComponent(editId)}`) : Promise.resolve(null),
  ]);
  const brands = regs.data.filter((r) => r.kind === '10dlc-brand');
  add(view, [
    h('h2', {}, 'Compliance'),
    h(
      'p',
      { class: 'muted' },
      'Keep here what the carrier or The Campaign Registry gave you for each 10DLC brand and campaign, and each toll-free verification: its id, its state and the caps granted. Registering itself is done with your carrier.',
    ),
    table(
      [
        ['Name', (r) => h('a', { href: link('/compliance', { edit: r.id }) }, h('bdi', {}, r.name))],
        ['Kind', (r) => kindName(r.kind)],
        ['Carrier id', (r) => r.externalId ?? '—'],
        ['State', (r) => badge(r.status)],
        [
          'Covers',
          (r) =>
            [r.phoneNumbers.map((n) => n.number).join(', '), r.group ? ` group ${r.group.name}` : ''].join(
              '',
            ) || '—',
        ],
        [
          'Caps',
          (r) =>
            [
              r.messagesPerSecond != null ? `${r.messagesPerSecond}/s` : '',
              r.dailyCap != null ? `${r.dailyCap} a day` : '',
            ]
              .filter(Boolean)
              .join(' · ') || '—',
        ],
      ],
      regs.data,
      'Nothing recorded yet.',
    ),
    registrationForm(numbers.data, groups.data, brands, editing?.data ?? null),
    optOutHelp(),
  ]);
}

/**
 * @param {any[]} numbers
 * @param {any[]} groups
 * @param {any[]} brands
 * @param {any} r the registration being edited, or null
 */
function registrationForm(numbers, groups, brands, r) {
  const kind = h(
    'select',
    { name: 'kind', disabled: Boolean(r) },
    KINDS.map(([v, label]) => h('option', { value: v, selected: v === r?.kind }, label)),
  );
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: r?.name ?? '' });
  const externalId = h('input', { name: 'externalId', maxlength: 100, value: r?.externalId ?? '' });
  const status = h(
    'select',
    { name: 'status' },
    STATUSES.map((s) => h('option', { value: s, selected: s === (r?.status ?? 'draft') }, s)),
  );
  const parent = h(
    'select',
    { name: 'parentId' },
    h('option', { value: '' }, '—'),
    brands
      .filter((b) => b.id !== r?.id)
      .map((b) => h('option', { value: b.id, selected: b.id === r?.parentId }, b.name)),
  );
  const parentField = field('Brand', parent, 'The 10DLC brand this campaign is registered under');
  const useCase = h('input', {
    name: 'useCase',
    maxlength: 100,
    value: r?.useCase ?? '',
    placeholder: 'e.g. MARKETING',
  });
  const mine = new Set((r?.phoneNumbers ?? []).map((n) => n.id));
  const numberBoxes = numbers.map((n) => ({
    n,
    box: h('input', { type: 'checkbox', name: 'phoneNumberIds', value: n.id, checked: mine.has(n.id) }),
  }));
  const group = h(
    'select',
    { name: 'groupId' },
    h('option', { value: '' }, '—'),
    groups.map((g) => h('option', { value: g.id, selected: g.id === r?.group?.id }, g.name)),
  );
  const mps = h('input', {
    name: 'messagesPerSecond',
    type: 'number',
    min: 0,
    step: 1,
    value: r?.messagesPerSecond ?? '',
  });
  const daily = h('input', { name: 'dailyCap', type: 'number', min: 0, step: 1, value: r?.dailyCap ?? '' });
  const notes = h('textarea', { name: 'notes', rows: 2, maxlength: 2000 });
  notes.value = r?.notes ?? '';
  const syncKind = () => {
    parentField.hidden = kind.value !== '10dlc-campaign';
  };
  kind.addEventListener('change', syncKind);
  syncKind();
  const button = h('button', { type: 'submit' }, r ? 'Save' : 'Record it');
  const num = (el) => (el.value === '' ? null : Number(el.value));
  const opt = (el) => el.value.trim() || null;
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        /** @type {Record<string, unknown>} */
        const json = {
          name: name.value.trim(),
          externalId: opt(externalId),
          status: status.value,
          useCase: opt(useCase),
          phoneNumberIds: numberBoxes.filter((x) => x.box.checked).map((x) => x.n.id),
          groupId: group.value || null,
          messagesPerSecond: num(mps),
          dailyCap: num(daily),
          notes: opt(notes),
        };
        if (kind.value === '10dlc-campaign') json.parentId = parent.value || null;
        button.disabled = true;
        try {
          if (r) await api('PUT', `/compliance/registrations/${encodeURIComponent(r.id)}`, { json });
          else await api('POST', '/compliance/registrations', { json: { kind: kind.value, ...json } });
          showAfterNavigation(r ? 'Saved.' : 'Recorded.');
          go('/compliance', { t: Date.now() });
        } catch (err) {
          button.disabled = false;
          showError(err);
        }
      },
    },
    h('h3', {}, r ? `Edit “${r.name}”` : 'Record a registration'),
    field('Kind', kind),
    field('Name', name),
    field('Carrier or registry id', externalId, 'e.g. the TCR brand id (B…) or campaign id (C…)'),
    field('State', status),
    parentField,
    field('Use case', useCase),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Numbers it covers'),
      numberBoxes.length
        ? numberBoxes.map(({ n, box }) => h('label', { class: 'check' }, box, ` ${n.number}`))
        : h('p', { class: 'muted' }, 'No numbers yet.'),
      field('Or a group', group),
    ),
    field('Messages a second granted', mps),
    field('Messages a day granted', daily),
    field('Notes', notes),
    h(
      'div',
      { class: 'actions' },
      button,
      r
        ? h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: async () => {
                if (!confirm(`Delete the record “${r.name}”?`)) return;
                try {
                  await api('DELETE', `/compliance/registrations/${encodeURIComponent(r.id)}`);
                  showAfterNavigation('Deleted.');
                  go('/compliance', { t: Date.now() });
                } catch (err) {
                  showError(err);
                }
              },
            },
            'Delete',
          )
        : null,
      r ? h('a', { class: 'button secondary', href: '#/compliance' }, 'Cancel') : null,
    ),
  );
}

/** What a marketing text must let people do, with a footer to copy. */
function optOutHelp() {
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'opt-out-help' },
    h('h3', { id: 'opt-out-help' }, 'Opt-out and help texts'),
    h(
      'p',
      {},
      'Carriers expect every marketing message to say who is writing and how to stop. Sparrow answers STOP, STOPALL, UNSUBSCRIBE, CANCEL, END and QUIT by opting the contact out (START, YES or UNSTOP opt them back in), and HELP or INFO with your help text; each answer is sent free, and an opted-out contact is never sent to. Until you write your own, the replies start with your account name, e.g. “<your account name>: Reply STOP to unsubscribe. Msg & data rates may apply.” Change the wording under Overview → Account settings.',
    ),
    h('p', {}, 'A footer to end your campaign texts with (it fits in most single segments):'),
    h('p', {}, h('code', { 'data-test': 'opt-out-footer' }, 'Reply STOP to opt out, HELP for help.')),
  );
}
