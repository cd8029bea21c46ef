// Integrations: CRMs (HubSpot, Pipedrive, ActiveCampaign) whose contacts are kept in step with the
// account (docs/integrations.md): connect with a token, status, last sync, counts, errors, sync
// now, disconnect.
import { api } from '../api.js';
import { badge, field, h, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

/**
 * An integration as the API shows it.
 * @typedef {{ id: string, type: string, status: string, apiUrl?: string, lastSynced?: string,
 *   syncing: boolean, counts: Record<string, number>,
 *   lastError?: { code: string, description: string, at: string },
 *   syncs: { contacts: boolean, optOuts: boolean, messages: boolean, intervalMinutes: number } }} Integration
 */

/** @type {Record<string, string>} */
const NAMES = { hubspot: 'HubSpot', pipedrive: 'Pipedrive', activecampaign: 'ActiveCampaign' };

/** The counts of the last run, in words. @param {Record<string, number>} c */
function countsText(c) {
  const parts = [
    `${c.read ?? 0} read`,
    `${c.created ?? 0} created`,
    `${c.updated ?? 0} updated`,
    `${c.withoutPhone ?? 0} without a phone (not imported)`,
    `${c.duplicatePhone ?? 0} sharing a phone (lower CRM id kept)`,
    `${c.pushed ?? 0} written to the CRM`,
  ];
  if (c.pushPending) parts.push(`${c.pushPending} waiting`);
  if (c.pushFailed) parts.push(`${c.pushFailed} failed`);
  return parts.join(' · ');
}

/**
 * #/integrations
 * @param {HTMLElement} view
 */
export async function integrationsPage(view) {
  const res = await api('GET', '/integrations', { query: { limit: 100 } });
  /** @type {Integration[]} */
  const integrations = res.data;
  view.append(
    h('h2', {}, 'Integrations'),
    h(
      'p',
      {},
      'Contacts with a phone number come in from your CRM and stay in step with it; opt-outs and opt-ins ' +
        'are written back to the CRM record, and every message to or from a synced contact is logged on it.',
    ),
    table(
      [
        ['CRM', (i) => NAMES[i.type] ?? i.type],
        ['Status', (i) => h('span', {}, badge(i.status), i.syncing ? ' syncing…' : '')],
        ['Last sync', (i) => (i.lastSynced ? when(i.lastSynced) : 'not yet')],
        ['Counts', (i) => countsText(i.counts)],
        ['Last error', (i) => (i.lastError ? `${i.lastError.code}: ${i.lastError.description}` : '—')],
        [
          '',
          (i) =>
            h(
              'span',
              { class: 'inline' },
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': `Sync ${NAMES[i.type] ?? i.type} now`,
                  onclick: () => syncNow(i),
                },
                'Sync now',
              ),
              h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  'aria-label': `Disconnect ${NAMES[i.type] ?? i.type}`,
                  onclick: () => disconnect(i),
                },
                'Disconnect',
              ),
            ),
        ],
      ],
      integrations,
      'No CRM connected yet.',
    ),
    connectForm(integrations.map((i) => i.type)),
  );
}

/** @param {Integration} i */
async function syncNow(i) {
  try {
    await api('POST', `/integrations/${encodeURIComponent(i.id)}/sync`);
    showAfterNavigation(`${NAMES[i.type] ?? i.type}: a sync has started.`);
    go('/integrations', { t: Date.now() });
  } catch (err) {
    showError(err);
  }
}

/** @param {Integration} i */
async function disconnect(i) {
  const name = NAMES[i.type] ?? i.type;
  if (!confirm(`Disconnect ${name}? Contacts keep their ${name} ids.`)) return;
  try {
    await api('DELETE', `/integrations/${encodeURIComponent(i.id)}`);
    showAfterNavigation(`${name} was disconnected.`);
    go('/integrations', { t: Date.now() });
  } catch (err) {
    showError(err);
  }
}

/**
 * The form that connects a CRM not connected yet: its type, and the credential fields it takes.
 * @param {string[]} connected
 */
function connectForm(connected) {
  const free = Object.keys(NAMES).filter((t) => !connected.includes(t));
  if (free.length === 0) return h('p', {}, 'Every CRM Sparrow knows is connected.');
  const type = h(
    'select',
    { name: 'type' },
    free.map((t) => h('option', { value: t }, NAMES[t])),
  );
  const token = h('input', {
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    required: true,
    maxlength: 512,
  });
  const apiUrl = h('input', { name: 'apiUrl', type: 'url', placeholder: 'https://youraccount.api-us1.com' });
  const tokenField = field('Token', token);
  const urlField = field('API URL', apiUrl, 'ActiveCampaign: Settings → Developer');
  const label = /** @type {HTMLElement} */ (tokenField.querySelector('span'));
  const show = () => {
    const t = /** @type {HTMLSelectElement} */ (type).value;
    label.textContent =
      t === 'hubspot' ? 'Private-app access token' : t === 'pipedrive' ? 'API token' : 'API key';
    urlField.hidden = t !== 'activecampaign';
    /** @type {HTMLInputElement} */ (apiUrl).required = t === 'activecampaign';
  };
  type.addEventListener('change', show);
  show();
  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    const t = /** @type {HTMLSelectElement} */ (type).value;
    const secret = /** @type {HTMLInputElement} */ (token).value.trim();
    /** @type {Record<string, string>} */
    const body = { type: t };
    if (t === 'hubspot') body.accessToken = secret;
    else if (t === 'pipedrive') body.apiToken = secret;
    else {
      body.apiKey = secret;
      body.apiUrl = /** @type {HTMLInputElement} */ (apiUrl).value.trim();
    }
    try {
      await api('POST', '/integrations', { json: body });
      showAfterNavigation(`${NAMES[t]} is connected; the first sync has started.`);
      go('/integrations', { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'form',
    { class: 'panel', onsubmit: submit },
    h('h3', {}, 'Connect a CRM'),
    field('CRM', type),
    tokenField,
    urlField,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Connect')),
  );
}
