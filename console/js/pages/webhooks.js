// Webhooks: subscriptions (destination and event types), subscribe, rotate the signing secret,
// enable / disable, unsubscribe, and a subscription's deliveries with their attempts.
import { api } from '../api.js';
import { badge, field, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go } from '../router.js';

const EVENT_TYPES = [
  'message-received',
  'message-status',
  'message-sent',
  'conversation-started',
  'conversation-closed',
  'contact-created',
  'contact-updated',
  'contact-removed',
  'contact-opt-out',
  'contact-opt-in',
];

/** Shows a signing secret once, with a note that it will not be shown again. */
function showSecret(text, secret) {
  showInfo(text, h('br'), 'Signing secret (shown only now): ', h('code', { class: 'secret' }, secret));
}

/** #/webhooks?offset= */
export async function webhooksPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const res = await api('GET', '/webhooks', { query: { offset, limit: 20 } });
  const reload = () => go('/webhooks', { offset, t: Date.now() });
  const hookPath = (w) => `/webhooks/${encodeURIComponent(w.id)}`;
  view.append(
    h('h2', {}, 'Webhooks'),
    table(
      [
        ['Destination', (w) => h('a', { href: `#${hookPath(w)}` }, w.destination)],
        ['Events', (w) => w.eventTypes.map((t) => h('span', { class: 'tag' }, t))],
        [
          'Status',
          (w) => [
            badge(w.status),
            w.disabled ? h('small', {}, ` ${w.disabled.reason}`) : null,
            w.paused ? h('small', {}, ` ${pausedText(w.paused)}`) : null,
          ],
        ],
        ['Created', (w) => when(w.created.at)],
        [
          '',
          (w) => [
            w.status === 'paused' ? confirmButton(w, hookPath(w), reload) : null,
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                onclick: async () => {
                  if (!confirm('Rotate the signing secret? The old one keeps working for 24 hours.')) return;
                  try {
                    const r = await api('POST', `${hookPath(w)}/rotate-secret`);
                    showSecret(`New secret for ${w.destination}.`, r.data.secret);
                  } catch (err) {
                    showError(err);
                  }
                },
              },
              'Rotate secret',
            ),
            // A paused subscription is confirmed (or unsubscribed), not toggled: a disabled one can
            // be re-enabled by any Member.
            w.status === 'paused'
              ? null
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: async () => {
                      try {
                        await api('PUT', hookPath(w), {
                          json: { status: w.status === 'active' ? 'disabled' : 'active' },
                        });
                        showAfterNavigation(
                          w.status === 'active' ? 'Subscription disabled.' : 'Subscription enabled.',
                        );
                        reload();
                      } catch (err) {
                        showError(err);
                      }
                    },
                  },
                  w.status === 'active' ? 'Disable' : 'Enable',
                ),
            h(
              'button',
              {
                type: 'button',
                class: 'link danger',
                onclick: async () => {
                  if (!confirm(`Unsubscribe ${w.destination}?`)) return;
                  try {
                    await api('DELETE', hookPath(w));
                    showAfterNavigation('Unsubscribed.');
                    reload();
                  } catch (err) {
                    showError(err);
                  }
                },
              },
              'Unsubscribe',
            ),
          ],
        ],
      ],
      res.data,
      'No subscriptions yet.',
    ),
    pager(res.pagination, (o) => go('/webhooks', { offset: o })),
    subscribeForm(),
  );
}

/** Why a subscription is paused, for an administrator to judge. */
function pausedText(paused) {
  return paused.reason === 'creator-removed'
    ? `its creator (or a person who set its address or saw its secret) left the account on ${when(paused.at)}: nothing is delivered until an administrator confirms it`
    : `paused on ${when(paused.at)}`;
}

/** Keeps a paused subscription (administrators only): it receives again from the next event. */
function confirmButton(w, path, reload) {
  return h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: async () => {
        const ask =
          `Keep sending events to ${w.destination}? It was paused because a person who held it left the account: ` +
          'the address may be theirs. Consider rotating its secret too.';
        if (!confirm(ask)) return;
        try {
          await api('POST', `${path}/confirm`);
          showAfterNavigation('Subscription confirmed: it receives events again.');
          reload();
        } catch (err) {
          showError(err);
        }
      },
    },
    'Confirm',
  );
}

function subscribeForm() {
  const url = h('input', {
    name: 'url',
    type: 'url',
    required: true,
    placeholder: 'https://example.com/sparrow',
  });
  const boxes = EVENT_TYPES.map((t) =>
    h('input', { type: 'checkbox', name: 'eventTypes', value: t, checked: true }),
  );
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const eventTypes = boxes.filter((b) => b.checked).map((b) => b.value);
        if (!eventTypes.length) return showError(new Error('Choose at least one event type.'));
        try {
          const r = await api('POST', '/webhooks', { json: { url: url.value.trim(), eventTypes } });
          await webhooksReload();
          showSecret(`Subscribed ${r.data.destination}.`, r.data.secret);
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Subscribe'),
    field('Destination URL', url),
    h(
      'fieldset',
      { class: 'checks' },
      h('legend', {}, 'Event types'),
      boxes.map((b) => h('label', {}, b, ` ${b.value}`)),
    ),
    h('button', { type: 'submit' }, 'Subscribe'),
  );
}

// The secret must stay on screen, so the list is redrawn in place rather than by navigating.
async function webhooksReload() {
  const view = document.querySelector('.view');
  if (!view) return;
  const fresh = h('div', { class: 'view' });
  await webhooksPage(fresh, { query: new URLSearchParams() });
  view.replaceWith(fresh);
}

/** #/webhooks/:id?offset= — the deliveries of one subscription. */
export async function webhookPage(view, { params, query }) {
  const id = encodeURIComponent(params.id);
  const offset = Number(query.get('offset') ?? 0);
  const [hook, res] = await Promise.all([
    api('GET', `/webhooks/${id}`),
    api('GET', `/webhooks/${id}/deliveries`, { query: { offset, limit: 20 } }),
  ]);
  const w = hook.data;
  view.append(
    h('h2', {}, 'Deliveries'),
    h('p', {}, w.destination, ' ', badge(w.status)),
    w.paused ? h('p', { class: 'flash-error' }, `Paused: ${pausedText(w.paused)}.`) : null,
    h('p', { class: 'muted' }, `Events: ${w.eventTypes.join(', ')}`),
    table(
      [
        ['Created', (d) => when(d.createdAt)],
        ['Event', (d) => d.eventType],
        ['Status', (d) => badge(d.status)],
        ['Attempts', (d) => String(d.attemptCount)],
        ['Last answer', (d) => (d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? '—'))],
        ['Next attempt', (d) => when(d.nextAttemptAt)],
        [
          '',
          (d) =>
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                onclick: async () => {
                  try {
                    await api('POST', `/webhooks/${id}/deliveries/${encodeURIComponent(d.id)}/replay`);
                    showAfterNavigation('Delivery queued again.');
                    go(`/webhooks/${params.id}`, { offset, t: Date.now() });
                  } catch (err) {
                    showError(err);
                  }
                },
              },
              'Replay',
            ),
        ],
      ],
      res.data,
      'No deliveries yet.',
    ),
    pager(res.pagination, (o) => go(`/webhooks/${params.id}`, { offset: o })),
  );
}
