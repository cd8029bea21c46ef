// Campaigns: list (with a name filter), create a campaign (a draft, or one run at a set time),
// run a quick campaign (a list, a group, a text: now or at a time), pause, resume and delete.
import { api } from '../api.js';
import { badge, field, filterForm, h, money, pager, searchInput, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go, link } from '../router.js';
import { mergeButtons, messageBox } from './compose.js';
import { reportLink } from './reports.js';

/** #/campaigns?name=&offset= */
export async function campaignsPage(view, { query }) {
  const nameFilter = query.get('name') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const [res, lists, groups] = await Promise.all([
    api('GET', '/campaigns', { query: { name: nameFilter, offset, limit: 20 } }),
    api('GET', '/lists', { query: { limit: 100 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
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
        ['Name', (c) => c.name],
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
    quickForm(lists.data, groups.data, reload),
    campaignForm(lists.data, groups.data, reload),
  );
}

const listOptions = (lists) => lists.map((l) => h('option', { value: l.id }, `${l.name} (${l.size})`));
const groupOptions = (groups) =>
  groups.map((g) => h('option', { value: g.id, selected: g.isDefault }, g.name));
// datetime-local gives local wall time without a zone; the API wants an instant.
const instant = (value) => (value ? new Date(value).toISOString() : undefined);

function quickForm(lists, groups, reload) {
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const list = h('select', { name: 'listId', required: true }, listOptions(lists));
  const group = h('select', { name: 'groupId', required: true }, groupOptions(groups));
  const sendAt = h('input', { name: 'sendAt', type: 'datetime-local' });
  const box = messageBox('message');
  box.textarea.maxLength = 1600;
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const res = await api('POST', '/quickcampaigns', {
            json: {
              name: name.value.trim(),
              listId: list.value,
              groupId: group.value,
              message: { message: box.textarea.value },
              sendAt: instant(sendAt.value),
            },
          });
          const { campaign, job } = res.data;
          showAfterNavigation(
            job
              ? `“${campaign.name}” is sending: ${job.queued} queued, ${job.failures} failed, ${money(job.price)}.`
              : `“${campaign.name}” is scheduled for ${when(campaign.nextExecution)}.`,
          );
          reload();
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Quick campaign'),
    h('p', { class: 'muted' }, 'Sends a text to the members of a list, now or at a set time.'),
    field('Name', name),
    field('List', list),
    field('Send from group', group),
    field('Message', box.textarea),
    mergeButtons(box.textarea, box.update),
    box.counter,
    field('Send at', sendAt, 'Empty: send now'),
    h('button', { type: 'submit' }, 'Run campaign'),
  );
}

function campaignForm(lists, groups, reload) {
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const description = h('input', { name: 'description', maxlength: 2000 });
  const list = h(
    'select',
    { name: 'list' },
    h('option', { value: '' }, '— choose later —'),
    listOptions(lists),
  );
  const group = h('select', { name: 'group' }, groupOptions(groups));
  const next = h('input', { name: 'nextExecution', type: 'datetime-local' });
  const box = messageBox('template');
  box.textarea.maxLength = 1600;
  box.textarea.required = false;
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const body = {
          name: name.value.trim(),
          description: description.value.trim() || undefined,
          template: box.textarea.value,
          filters: list.value ? { list: { id: list.value } } : undefined,
          phoneNumberFilter: { group: { id: group.value } },
          nextExecution: instant(next.value),
        };
        try {
          await api('POST', '/campaigns', { json: body });
          showAfterNavigation(`Campaign “${body.name}” created.`);
          reload();
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'New campaign'),
    h('p', { class: 'muted' }, 'Without a run time it stays a draft.'),
    field('Name', name),
    field('Description', description),
    field('List', list),
    field('Send from group', group),
    field('Template', box.textarea),
    mergeButtons(box.textarea, box.update),
    box.counter,
    field('Run at', next, 'Empty: keep as a draft'),
    h('button', { type: 'submit' }, 'Create campaign'),
  );
}
