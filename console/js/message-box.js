// The message box the console's pages share (Compose, Campaigns, Templates, Autoresponders, the
// inbox's reply, Forms, Overview): a text area with merge-field buttons named in words, a live
// segment counter that names the characters forcing UCS-2, and the Idempotency-Key of a send.
import { h, nameOf } from './dom.js';
import { parseTemplate, renderTemplate } from './rules/render.js';
import { countSegments, nonGsmCharacters, SEGMENT_LIMITS, smartEncode } from './rules/segments.js';

/** Merge fields a person can insert with one click, by name; the text keeps the API's syntax. */
export const COMMON_FIELDS = [
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['email', 'E-mail'],
  ['mobile', 'Mobile'],
];

/** A random key (hex) for one composed send's Idempotency-Key. */
export function newSendKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Merge-field buttons named in words ("First name"), each inserting its field at the cursor of
 * `textarea` in the API's syntax, then calling `changed()`; `fields` are COMMON_FIELDS unless given.
 * @param {HTMLTextAreaElement | HTMLInputElement} textarea
 * @param {() => void} [changed]
 * @param {string[][]} [fields] [key, label] pairs
 */
export function mergeButtons(textarea, changed = () => {}, fields = COMMON_FIELDS) {
  return h(
    'div',
    { class: 'chips merge-fields' },
    h('span', { class: 'muted' }, 'Insert: '),
    fields.map(([key, label]) =>
      h(
        'button',
        {
          type: 'button',
          class: 'chip-button',
          'data-field': key,
          title: `Each recipient's ${label.toLowerCase()}`,
          onclick: () => {
            const at = textarea.selectionStart ?? textarea.value.length;
            textarea.value = `${textarea.value.slice(0, at)}{{{${key}}}}${textarea.value.slice(textarea.selectionEnd ?? at)}`;
            textarea.focus();
            changed();
          },
        },
        `+ ${label}`,
      ),
    ),
  );
}

/**
 * The text with the characters that force UCS-2 replaced by a GSM-7 look-alike where one exists
 * (an accented letter by its plain letter: "ë" → "e"); others stay.
 * @param {string} text
 */
export function plainLetters(text) {
  const odd = new Set(nonGsmCharacters(text));
  return [...text]
    .map((ch) => {
      if (!odd.has(ch)) return ch;
      const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      return base && !nonGsmCharacters(base).length ? base : ch;
    })
    .join('');
}

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
export const mergeValues = (contact) => ({
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
    if (odd.length) {
      lines.push(h('span', { class: 'warn' }, ` · UCS-2 because of: ${odd.slice(0, 8).join(' ')}`));
      const plain = plainLetters(text);
      const now = countSegments(on ? smartEncode(text) : text).segments;
      const then = countSegments(on ? smartEncode(plain) : plain).segments;
      lines.push(
        h('br'),
        h(
          'span',
          { class: 'warn', 'data-test': 'ucs2-warning' },
          `Warning: ${odd.slice(0, 8).join(' ')} ${odd.length === 1 ? 'is' : 'are'} not in the GSM-7 alphabet, so the whole text is sent as UCS-2: 70 characters a segment instead of 160.`,
          then < now
            ? ` Without ${odd.length === 1 ? 'it' : 'them'}: ${then} segment${then === 1 ? '' : 's'} instead of ${now}.`
            : '',
        ),
      );
      if (plain !== text)
        lines.push(
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                textarea.value = plain;
                update();
              },
            },
            'Use plain letters',
          ),
        );
    }
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
