// Compose & send: recipients (contacts, a list, or new mobile numbers), the sender group, the text
// with merge fields and a live segment counter, then the send's answer (queued, failed, price).
import { api, shareFile } from '../api.js';
import { field, h, money, nameOf } from '../dom.js';
import { showError, showInfo } from '../flash.js';
import { link } from '../router.js';
import { parseTemplate, renderTemplate } from '../rules/render.js';
import { countSegments, nonGsmCharacters, SEGMENT_LIMITS, smartEncode } from '../rules/segments.js';
import { MEDIA_ACCEPT } from './files.js';

/** Merge fields a person can insert with one click. */
const COMMON_FIELDS = ['firstName', 'lastName', 'email', 'mobile'];

/**
 * A one-line summary of a text's segments: "42 / 160 characters · GSM-7 · 1 segment", of the text
 * as the server sends it with smart encoding on when `smart` (docs/encoding.md).
 */
function describeSegments(text, smart = false) {
  const { encoding, segments, units } = countSegments(smart ? smartEncode(text) : text);
  const { single, multi } = SEGMENT_LIMITS[encoding];
  const capacity = segments === 1 ? single : segments * multi;
  const unitName = encoding === 'GSM-7' ? 'characters' : 'UCS-2 units';
  return `${units} / ${capacity} ${unitName} · ${encoding} · ${segments} segment${segments === 1 ? '' : 's'}`;
}

/** Whether a text uses any merge field. */
const hasMergeFields = (text) => parseTemplate(text).some((part) => part.kind !== 'text');

/** A contact as the API shows it, as merge fields read it (the mobile's number and country). */
const mergeValues = (contact) => ({
  ...contact,
  mobile: contact.mobile?.number,
  country: contact.mobile?.country,
});

/**
 * A textarea with a live encoding/segment counter under it; answers { textarea, counter }. With
 * `smart()` true the count is of the text as the server sends it with smart encoding on.
 */
export function messageBox(name = 'text', preview = () => null, smart = () => false) {
  const textarea = h('textarea', { name, rows: 5, maxlength: 10000, required: true });
  const counter = h('p', { class: 'counter', 'aria-live': 'polite' });
  const update = () => {
    const text = textarea.value;
    const on = smart();
    /** @type {(Node | string)[]} */
    const lines = [h('span', { 'data-test': 'segments' }, describeSegments(text, on))];
    if (on && smartEncode(text) !== text)
      lines.push(
        h(
          'span',
          { class: 'muted', 'data-test': 'smart' },
          ' · smart-encoded: quotes and dashes sent as GSM-7',
        ),
      );
    const odd = nonGsmCharacters(on ? smartEncode(text) : text);
    if (odd.length)
      lines.push(h('span', { class: 'warn' }, ` · UCS-2 because of: ${odd.slice(0, 8).join(' ')}`));
    const sample = preview();
    if (sample && hasMergeFields(text)) {
      const rendered = renderTemplate(text, mergeValues(sample));
      lines.push(h('br'), `For ${nameOf(sample)}: “${rendered}” — ${describeSegments(rendered, on)}`);
    } else if (hasMergeFields(text)) {
      lines.push(h('br'), 'Counted as written; each recipient’s count depends on their merge-field values.');
    }
    counter.replaceChildren(...lines);
  };
  textarea.addEventListener('input', update);
  update();
  return { textarea, counter, update };
}

/** #/compose?contact=&list= */
export async function composePage(view, { query }) {
  const [account, groups, lists, templates] = await Promise.all([
    api('GET', ''),
    api('GET', '/groups', { query: { limit: 100 } }),
    api('GET', '/lists', { query: { limit: 100 } }),
    api('GET', '/templates', { query: { limit: 100 } }),
  ]);
  const picked = new Map();
  const preselect = query.get('contact');
  if (preselect) picked.set(preselect, (await api('GET', `/contacts/${encodeURIComponent(preselect)}`)).data);

  const mode = query.get('list') ? 'list' : 'contacts';
  const modes = ['contacts', 'list', 'mobiles'].map((m) =>
    h('input', { type: 'radio', name: 'mode', value: m, checked: m === mode, onchange: () => show() }),
  );
  const chips = h('div', { class: 'chips' });
  const search = h('input', { type: 'search', placeholder: 'Find contacts by name, email or mobile' });
  const found = h('div', { class: 'found' });
  const listSelect = h(
    'select',
    { name: 'list' },
    lists.data.map((l) =>
      h('option', { value: l.id, selected: l.id === query.get('list') }, `${l.name} (${l.size})`),
    ),
  );
  const mobiles = h('textarea', { name: 'mobiles', rows: 3, placeholder: '+14155550123\n+447700900123' });
  const group = h(
    'select',
    { name: 'group' },
    groups.data.map((g) =>
      h('option', { value: g.id, selected: g.isDefault }, `${g.name}${g.isDefault ? ' (default)' : ''}`),
    ),
  );
  // Smart encoding: the account's setting, which this send may turn off (or on).
  const smartBox = h('input', {
    type: 'checkbox',
    name: 'smartEncoding',
    checked: account.data.smartEncoding !== false,
  });
  const validity = h('input', {
    type: 'number',
    name: 'validityPeriod',
    min: 1,
    max: 604800,
    step: 1,
    placeholder: account.data.validityPeriod ? String(account.data.validityPeriod) : 'none',
  });
  const box = messageBox(
    'text',
    () => picked.values().next().value ?? null,
    () => smartBox.checked,
  );
  smartBox.addEventListener('change', () => box.update());
  const templatePick = h(
    'select',
    {
      name: 'template',
      onchange: () => {
        const t = templates.data.find((x) => x.id === templatePick.value);
        if (t) box.textarea.value = t.template;
        box.update();
      },
    },
    h('option', { value: '' }, 'Start from a template…'),
    templates.data.map((t) => h('option', { value: t.id }, t.name)),
  );
  const insert = COMMON_FIELDS.map((f) =>
    h(
      'button',
      {
        type: 'button',
        class: 'chip-button',
        onclick: () => {
          const el = box.textarea;
          const at = el.selectionStart ?? el.value.length;
          el.value = `${el.value.slice(0, at)}{{{${f}}}}${el.value.slice(el.selectionEnd ?? at)}`;
          el.focus();
          box.update();
        },
      },
      `{{{${f}}}}`,
    ),
  );

  const drawChips = () => {
    chips.replaceChildren(
      ...[...picked.values()].map((c) =>
        h(
          'span',
          { class: 'chip' },
          nameOf(c),
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              'aria-label': 'Remove',
              onclick: () => {
                picked.delete(c.id);
                drawChips();
                box.update();
              },
            },
            '×',
          ),
        ),
      ),
    );
    if (!picked.size) chips.append(h('span', { class: 'muted' }, 'No contact chosen yet.'));
  };
  const contactsPart = h(
    'div',
    {},
    chips,
    h('div', { class: 'inline' }, search, h('button', { type: 'button', onclick: () => find() }, 'Find')),
    found,
  );
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      find();
    }
  });
  async function find() {
    try {
      const res = await api('GET', '/contacts', { query: { q: search.value.trim(), limit: 10 } });
      found.replaceChildren(
        ...res.data.map((c) =>
          h(
            'button',
            {
              type: 'button',
              class: 'chip-button',
              onclick: () => {
                picked.set(c.id, c);
                drawChips();
                box.update();
              },
            },
            `+ ${nameOf(c)} ${c.mobile?.number ?? ''}`,
          ),
        ),
      );
      if (!res.data.length) found.append(h('span', { class: 'muted' }, 'No contact matches.'));
    } catch (err) {
      showError(err);
    }
  }
  const parts = {
    contacts: contactsPart,
    list: field('List', listSelect),
    mobiles: field('Mobile numbers', mobiles, 'One per line, E.164; new numbers become contacts'),
  };
  const recipients = h('div', {});
  const show = () => {
    const m = (modes.find((r) => r.checked) ?? modes[0]).value;
    recipients.replaceChildren(parts[m]);
  };
  const result = h('div', { class: 'result' });
  const button = h('button', { type: 'submit' }, 'Send');
  // MMS media: a file uploaded on send (POST /v1/tools/sharefile), or a hosted link from Files (?media=).
  const mediaInput = h('input', { type: 'file', name: 'media', accept: MEDIA_ACCEPT });
  const mediaLink = query.get('media') ?? '';

  const form = h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const m = (modes.find((r) => r.checked) ?? modes[0]).value;
        const body = {
          template: box.textarea.value,
          phoneNumberFilter: { group: { id: group.value } },
          smartEncoding: smartBox.checked,
        };
        if (validity.value) body.validityPeriod = Number(validity.value);
        if (m === 'contacts') body.contacts = [...picked.keys()].map((id) => ({ id }));
        if (m === 'list') body.listId = listSelect.value;
        if (m === 'mobiles')
          body.contacts = mobiles.value
            .split(/[\n,;]+/)
            .map((s) => s.trim())
            .filter(Boolean)
            .map((number) => ({ mobile: { number } }));
        if ((m !== 'list' && !body.contacts.length) || (m === 'list' && !body.listId))
          return showError(new Error('Choose at least one recipient.'));
        button.disabled = true;
        result.replaceChildren();
        try {
          let media = mediaLink ? [{ url: mediaLink }] : [];
          const file = mediaInput.files?.[0];
          if (file) {
            const hosted = await shareFile(file);
            media = [{ url: hosted.link, type: hosted.contentType }];
          }
          if (media.length) Object.assign(body, { type: 'MMS', media });
          const res = await api('POST', '/messages', { json: body });
          const r = res.data;
          showInfo(
            `Sent: ${r.queued} queued, ${r.failed} not sent. Estimated price ${money(r.estimatedPrice)}. `,
            h('a', { href: link('/messages', { jobId: r.jobId }) }, 'Follow the messages'),
          );
          result.append(
            h(
              'ul',
              {},
              r.messages
                .filter((x) => x.error)
                .map((x) => h('li', {}, `${nameOf(x.contact)}: ${x.error.description} (${x.error.code})`)),
            ),
          );
        } catch (err) {
          showError(err);
        } finally {
          button.disabled = false;
        }
      },
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Recipients'),
      h(
        'div',
        { class: 'inline' },
        h('label', {}, modes[0], ' Contacts'),
        h('label', {}, modes[1], ' A list'),
        h('label', {}, modes[2], ' New mobiles'),
      ),
      recipients,
    ),
    field('Send from group', group),
    field('Template', templatePick),
    field('Message', box.textarea),
    h('div', { class: 'chips' }, h('span', { class: 'muted' }, 'Insert: '), insert),
    box.counter,
    h(
      'label',
      { class: 'inline' },
      smartBox,
      ' Smart encoding (curly quotes, dashes and ellipses sent as GSM-7)',
    ),
    field(
      'Validity (seconds)',
      validity,
      'Optional: a message not sent within it fails as expired and is refunded; empty: the account’s default',
    ),
    mediaLink
      ? field('Media (MMS)', h('span', { class: 'attached-media' }, mediaLink), 'A hosted file from Files')
      : field(
          'Media (MMS)',
          mediaInput,
          'Optional: an image, sound, video, PDF or vCard, uploaded when you send',
        ),
    h('div', { class: 'actions' }, button),
    result,
  );
  view.append(h('h2', {}, 'Compose'), form);
  drawChips();
  show();
}
