// Campaigns: list (with a name filter, names as links), one form to create or edit a campaign
// (a list, a group, a template or a text with merge fields by name, a preview), saved as a draft or
// launched now or at a time after a review of what it would send (POST …/messages/estimate);
// pause, resume and delete.
import { api } from '../api.js';
import { badge, field, filterForm, h, money, nameOf, pager, searchInput, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { mergeButtons, messageBox, newSendKey } from '../message-box.js';
import { go, link } from '../router.js';
import { renderTemplate } from '../rules/render.js';
import { confirmLabel, reviewRows, showReviewPanel } from '../send-review.js';
import { reportLink } from './reports.js';

/** #/campaigns?name=&offset= */
export async function campaignsPage(view, { query }) {
  const nameFilter = query.get('name') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const editId = query.get('edit');
  const [res, lists, groups, templates, editing] = await Promise.all([
    api('GET', '/campaigns', { query: { name: nameFilter, offset, limit: 20 } }),
    api('GET', '/lists', { query: { limit: 100 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
    api('GET', '/templates', { query: { limit: 100 } }),
    editId ? api('GET', `/campaigns/${encodeURIComponent(editId)}`) : Promise.resolve(null),
  ]);
  const reload = () => go('/campaigns', { name: nameFilter, offset, t: Date.now() });
  const act = (fn, done) => async () => {
    try {
      await fn();
      showAfterNavigation(done);
      reload();
    } catch (err) {
      showError(err);
    }
  };
  const search = searchInput(nameFilter, 'Name contains');
  view.append(
    h('h2', {}, 'Campaigns'),
    filterForm(search, () => go('/campaigns', { name: search.value.trim() })),
    table(
      [
        [
          'Name',
          (c) =>
            h(
              'a',
              {
                href:
                  c.status === 'draft' || c.status === 'scheduled' || c.paused
                    ? link('/campaigns', { edit: c.id })
                    : `#/reports/campaigns/${encodeURIComponent(c.id)}`,
              },
              h('bdi', {}, c.name),
            ),
        ],
        ['Status', (c) => badge(c.status)],
        ['List', (c) => c.filters.list?.name ?? '—'],
        ['Next run', (c) => when(c.nextExecution)],
        [
          'Last job',
          (c) =>
            c.lastJob
              ? h(
                  'a',
                  { href: link('/messages', { jobId: c.lastJob.id }) },
                  `${c.lastJob.status}: ${c.lastJob.submitted} submitted, ${c.lastJob.failures} failed, ${money(c.lastJob.price)}`,
                )
              : '—',
        ],
        ['Error', (c) => (c.lastError ? `${c.lastError.description} (${c.lastError.code})` : '')],
        [
          '',
          (c) => [
            reportLink('campaigns', c.id, 'link'),
            ' ',
            c.status === 'scheduled'
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: act(
                      () => api('PUT', `/campaigns/${encodeURIComponent(c.id)}`, { json: { paused: true } }),
                      'Campaign paused.',
                    ),
                  },
                  'Pause',
                )
              : null,
            c.paused
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: act(
                      () => api('PUT', `/campaigns/${encodeURIComponent(c.id)}`, { json: { paused: false } }),
                      'Campaign resumed.',
                    ),
                  },
                  'Resume',
                )
              : null,
            h(
              'button',
              {
                type: 'button',
                class: 'link danger',
                onclick: () =>
                  confirm(`Delete the campaign “${c.name}”? Its messages stay.`) &&
                  act(() => api('DELETE', `/campaigns/${encodeURIComponent(c.id)}`), 'Campaign deleted.')(),
              },
              'Delete',
            ),
          ],
        ],
      ],
      res.data,
      'No campaigns yet.',
    ),
    pager(res.pagination, (o) => go('/campaigns', { name: nameFilter, offset: o })),
  );
  const editor = campaignEditor(lists.data, groups.data, templates.data, editing?.data ?? null);
  if (editing) view.querySelector('h2')?.after(editor);
  else view.append(editor);
}

/**
 * One form for a campaign, new or a draft being edited: name, list, group, a template to start
 * from, the text with merge fields by name and a preview for a member of the list; "Save draft",
 * or "Review and launch…" (now or at a time) showing what the send would do before it is confirmed.
 * @param {any[]} lists
 * @param {any[]} groups
 * @param {any[]} templates
 * @param {any} campaign the draft being edited, or null
 */
function campaignEditor(lists, groups, templates, campaign) {
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: campaign?.name ?? '' });
  const list = h(
    'select',
    { name: 'listId', required: true },
    h('option', { value: '' }, '— choose a list —'),
    lists.map((l) =>
      h('option', { value: l.id, selected: l.id === campaign?.filters?.list?.id }, `${l.name} (${l.size})`),
    ),
  );
  const group = h(
    'select',
    { name: 'groupId' },
    groups.map((g) =>
      h(
        'option',
        {
          value: g.id,
          selected: campaign?.phoneNumberFilter ? g.id === campaign.phoneNumberFilter.group.id : g.isDefault,
        },
        g.name,
      ),
    ),
  );
  /** @type {any} */
  let sample = null;
  const box = messageBox('message', () => sample);
  box.textarea.maxLength = 1600;
  box.textarea.value = campaign?.template ?? '';
  box.update();
  const templatePick = h(
    'select',
    {
      name: 'template',
      'aria-label': 'Start from a template',
      onchange: () => {
        const t = templates.find((x) => x.id === templatePick.value);
        if (t) box.textarea.value = t.template;
        box.update();
      },
    },
    h('option', { value: '' }, 'Start from a template…'),
    templates.map((t) => h('option', { value: t.id }, t.name)),
  );
  const preview = h('p', { class: 'preview', 'data-test': 'campaign-preview' });
  const drawPreview = async () => {
    sample = null;
    preview.textContent = '';
    if (!list.value) return;
    try {
      const members = await api('GET', `/lists/${encodeURIComponent(list.value)}/contacts`, {
        query: { limit: 1 },
      });
      sample = members.data[0] ?? null;
    } catch {
      sample = null;
    }
    drawText();
  };
  const drawText = () => {
    box.update();
    if (!sample) {
      preview.textContent = list.value ? 'The list has no member to preview with.' : '';
      return;
    }
    const values = { ...sample, mobile: sample.mobile?.number, country: sample.mobile?.country };
    preview.textContent = `${nameOf(sample)} gets: “${renderTemplate(box.textarea.value, values)}”`;
  };
  list.addEventListener('change', drawPreview);
  box.textarea.addEventListener('input', drawText);
  const whenNow = h('input', { type: 'radio', name: 'launch', value: 'now', checked: true });
  const whenLater = h('input', { type: 'radio', name: 'launch', value: 'later' });
  const at = h('input', { name: 'nextExecution', type: 'datetime-local' });
  const review = h('section', { class: 'panel review', hidden: true, tabindex: -1, 'aria-label': 'Review' });
  const key = newSendKey();

  const body = () => ({
    name: name.value.trim(),
    template: box.textarea.value,
    filters: list.value ? { list: { id: list.value } } : undefined,
    phoneNumberFilter: { group: { id: group.value } },
  });
  /** Saves (POST for a new campaign, with one Idempotency-Key; PUT for a draft), answers the campaign. */
  const save = async (extra = {}) => {
    const json = { ...body(), ...extra };
    if (campaign) return (await api('PUT', `/campaigns/${encodeURIComponent(campaign.id)}`, { json })).data;
    return (await api('POST', '/campaigns', { json, headers: { 'Idempotency-Key': key } })).data;
  };
  const controls = () => form.querySelectorAll('input, select, textarea, button');
  const lock = (locked) => {
    for (const el of controls()) /** @type {HTMLInputElement} */ (el).disabled = locked;
  };

  const saveDraft = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        if (!name.value.trim()) return showError(new Error('Give the campaign a name.'));
        saveDraft.disabled = true;
        try {
          const c = await save();
          showAfterNavigation(`Draft “${c.name}” saved.`);
          go('/campaigns', { edit: c.id });
        } catch (err) {
          showError(err);
          saveDraft.disabled = false;
        }
      },
    },
    'Save draft',
  );

  async function showReview() {
    if (!name.value.trim()) return showError(new Error('Give the campaign a name.'));
    if (!list.value) return showError(new Error('Choose the list to send to.'));
    if (!box.textarea.value.trim()) return showError(new Error('Write the message first.'));
    let when;
    if (whenLater.checked) {
      const t = new Date(at.value);
      if (!at.value || Number.isNaN(t.getTime()) || t.getTime() <= Date.now())
        return showError(new Error('Choose a time in the future to launch at.'));
      when = t.toISOString();
    }
    lock(true);
    let e;
    try {
      e = (
        await api('POST', '/messages/estimate', {
          json: {
            listId: list.value,
            template: box.textarea.value,
            phoneNumberFilter: { group: { id: group.value } },
            quietHours: true,
          },
        })
      ).data;
    } catch (err) {
      lock(false);
      return showError(err);
    }
    const confirm = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          if (confirm.disabled) return;
          confirm.disabled = true;
          try {
            const c = await save({ nextExecution: when ?? new Date().toISOString() });
            showAfterNavigation(
              when
                ? `“${c.name}” is scheduled for ${new Date(when).toLocaleString()}.`
                : `“${c.name}” is launched.`,
            );
            go('/campaigns', { t: Date.now() });
          } catch (err) {
            confirm.disabled = false;
            showError(err);
          }
        },
      },
      confirmLabel(e, 'Launch', when),
    );
    showReviewPanel(review, {
      heading: 'Review before launching',
      what: 'this campaign',
      estimate: e,
      rows: reviewRows(e, { sender: group.selectedOptions[0]?.textContent ?? '', when, quietHours: true }),
      confirm,
      back: () => {
        review.hidden = true;
        lock(false);
      },
    });
  }

  const form = h(
    'form',
    {
      class: 'panel campaign-editor',
      onsubmit: (ev) => {
        ev.preventDefault();
        showReview();
      },
    },
    h('h3', {}, campaign ? `Edit “${campaign.name}”` : 'New campaign'),
    field('Name', name),
    field('List', list),
    field('Send from group', group),
    field('Template', templatePick),
    field('Message', box.textarea),
    mergeButtons(box.textarea, drawText),
    box.counter,
    preview,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Launch'),
      h('label', {}, whenNow, ' Now'),
      ' ',
      h('label', {}, whenLater, ' At a time: '),
      field(
        'Date and time',
        at,
        'Your browser’s time zone; quiet hours (21:00–8:00 for each recipient) are kept',
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Review and launch…'),
      saveDraft,
      campaign ? h('a', { class: 'button secondary', href: '#/campaigns' }, 'Cancel') : null,
    ),
  );
  if (list.value) drawPreview();
  return h('div', {}, form, review);
}
