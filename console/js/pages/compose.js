// Compose & send: recipients (contacts, a list, or new mobile numbers), the sender group, the text
// with merge fields and a live segment counter; then a review of what the send would do (POST
// …/messages/estimate: recipients after opt-outs, segments, UCS-2, price in the account's currency,
// sender, quiet hours, schedule) and only then, confirmed, the send itself (with an Idempotency-Key
// per composed send, so a second click or a retry cannot send twice); a test send to oneself.
import { api, shareFile } from '../api.js';
import { field, h, money, nameOf } from '../dom.js';
import { showError, showInfo } from '../flash.js';
import { mergeButtons, mergeValues, messageBox, newSendKey } from '../message-box.js';
import { link } from '../router.js';
import { renderTemplate } from '../rules/render.js';
import { confirmLabel, reviewRows, showReviewPanel } from '../send-review.js';
import { MEDIA_ACCEPT } from './files.js';

/** Where the console remembers the number a person sends tests to (this browser only). */
const TEST_MOBILE_KEY = 'sparrow.console.testMobile';

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
  const insert = mergeButtons(box.textarea, () => box.update());

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
  // MMS media: a file uploaded on send (POST /v1/tools/sharefile), or a hosted link from Files (?media=).
  const mediaInput = h('input', { type: 'file', name: 'media', accept: MEDIA_ACCEPT });
  const mediaLink = query.get('media') ?? '';
  const currency = account.data.currency ?? '';

  // When: now, or at a time (the browser's local time, sent as an instant).
  const whenNow = h('input', { type: 'radio', name: 'when', value: 'now', checked: true });
  const whenLater = h('input', { type: 'radio', name: 'when', value: 'later' });
  const sendAtInput = h('input', { type: 'datetime-local', name: 'sendAt', disabled: true });
  const syncWhen = () => {
    sendAtInput.disabled = !whenLater.checked;
    sendAtInput.required = whenLater.checked;
  };
  whenNow.addEventListener('change', syncWhen);
  whenLater.addEventListener('change', syncWhen);
  const quiet = h('input', { type: 'checkbox', name: 'quietHours' });

  // A test to oneself: the number is remembered in this browser.
  const testMobile = h('input', {
    type: 'tel',
    name: 'testMobile',
    placeholder: '+14155550123',
    autocomplete: 'tel',
    value: localStorage.getItem(TEST_MOBILE_KEY) ?? '',
    'aria-label': 'Your mobile number for a test',
  });
  const testButton = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => sendTest() },
    'Send me a test',
  );

  /** The send's body as the form stands (null with a message when something is missing). */
  const composed = () => {
    const m = (modes.find((r) => r.checked) ?? modes[0]).value;
    /** @type {Record<string, any>} */
    const body = {
      template: box.textarea.value,
      phoneNumberFilter: { group: { id: group.value } },
      smartEncoding: smartBox.checked,
    };
    if (validity.value) body.validityPeriod = Number(validity.value);
    if (quiet.checked) body.quietHours = true;
    if (m === 'contacts') body.contacts = [...picked.keys()].map((id) => ({ id }));
    if (m === 'list') body.listId = listSelect.value;
    if (m === 'mobiles')
      body.contacts = mobiles.value
        .split(/[\n,;]+/)
        .map((s) => s.trim())
        .filter(Boolean)
        .map((number) => ({ mobile: { number } }));
    if ((m !== 'list' && !body.contacts.length) || (m === 'list' && !body.listId))
      throw new Error('Choose at least one recipient.');
    if (!box.textarea.value.trim() && !mediaLink && !mediaInput.files?.length)
      throw new Error('Write the message first.');
    return body;
  };
  const sendAtValue = () => {
    if (!whenLater.checked) return undefined;
    const at = new Date(sendAtInput.value);
    if (!sendAtInput.value || Number.isNaN(at.getTime()))
      throw new Error('Choose the date and time to send at.');
    if (at.getTime() <= Date.now())
      throw new Error('The time to send at is in the past: choose a later one.');
    return at.toISOString();
  };

  async function sendTest() {
    const number = testMobile.value.trim();
    if (!number) return showError(new Error('Enter your mobile number to send yourself a test.'));
    const sample = picked.values().next().value;
    // The text as the first chosen contact would get it; without one, merge fields render empty.
    const text = sample ? renderTemplate(box.textarea.value, mergeValues(sample)) : box.textarea.value;
    if (!text.trim()) return showError(new Error('Write the message first.'));
    localStorage.setItem(TEST_MOBILE_KEY, number);
    testButton.disabled = true;
    try {
      const res = await api('POST', '/messages', {
        json: {
          template: text,
          contacts: [{ mobile: { number } }],
          phoneNumberFilter: { group: { id: group.value } },
          smartEncoding: smartBox.checked,
        },
      });
      const r = res.data;
      if (r.queued) showInfo(`Test sent to ${number} (${money(r.estimatedPrice, currency)}).`);
      else
        showError(
          new Error(
            `The test was not sent: ${r.messages[0]?.error?.description ?? r.invalid[0]?.error?.description ?? 'refused'}`,
          ),
        );
    } catch (err) {
      showError(err);
    } finally {
      testButton.disabled = false;
    }
  }

  // The review: what the send would do, then Confirm (or Back to edit). One key per composed send.
  const review = h('section', {
    class: 'panel review',
    hidden: true,
    'aria-labelledby': 'review-heading',
    tabindex: -1,
  });
  const reviewButton = h('button', { type: 'submit' }, 'Review and send…');
  /** @type {string | null} */
  let sendKey = null;
  const controls = () => form.querySelectorAll('input, select, textarea, button');
  const lock = (locked) => {
    for (const el of controls()) /** @type {HTMLInputElement} */ (el).disabled = locked;
    if (!locked) syncWhen();
  };

  /**
   * @param {Record<string, any>} body
   * @param {string | undefined} sendAt
   * @param {any} e the estimate
   */
  function showReview(body, sendAt, e) {
    const confirm = h(
      'button',
      { type: 'button', class: 'primary', onclick: () => confirmSend(body, sendAt, confirm) },
      confirmLabel(e, 'Send', sendAt),
    );
    showReviewPanel(review, {
      heading: 'Review before sending',
      headingId: 'review-heading',
      what: 'this send',
      estimate: e,
      rows: reviewRows(e, {
        sender: group.selectedOptions[0]?.textContent ?? '',
        when: sendAt,
        quietHours: Boolean(body.quietHours),
      }),
      confirm,
      back: () => {
        review.hidden = true;
        lock(false);
        reviewButton.focus();
      },
    });
  }

  /**
   * @param {Record<string, any>} body
   * @param {string | undefined} sendAt
   * @param {HTMLButtonElement} confirm
   */
  async function confirmSend(body, sendAt, confirm) {
    if (confirm.disabled) return;
    confirm.disabled = true;
    sendKey ??= newSendKey();
    try {
      let media = mediaLink ? [{ url: mediaLink }] : [];
      const file = mediaInput.files?.[0];
      if (file) {
        const hosted = await shareFile(file);
        media = [{ url: hosted.link, type: hosted.contentType }];
      }
      const json = {
        ...body,
        ...(media.length ? { type: 'MMS', media } : {}),
        ...(sendAt ? { sendAt } : {}),
      };
      const res = await api('POST', '/messages', { json, headers: { 'Idempotency-Key': sendKey } });
      const r = res.data;
      // Sent: the form stays locked and the review is replaced by the outcome; a new send starts afresh.
      review.replaceChildren(
        h('h3', { id: 'review-heading' }, r.status === 'scheduled' ? 'Scheduled' : 'Sent'),
        h(
          'p',
          { 'data-test': 'sent-summary' },
          r.status === 'scheduled'
            ? `Scheduled for ${new Date(r.sendAt).toLocaleString()}: ${r.valid} recipient${r.valid === 1 ? '' : 's'}, about ${money(r.estimatedPrice, currency)}, charged when it runs.`
            : `${r.queued} queued, ${r.failed} not sent. Charged ${money(r.estimatedPrice, currency)}.`,
        ),
        h(
          'ul',
          {},
          r.messages
            .filter((x) => x.error)
            .slice(0, 20)
            .map((x) => h('li', {}, `${nameOf(x.contact)}: ${x.error.description} (${x.error.code})`)),
        ),
        h(
          'div',
          { class: 'actions' },
          h(
            'a',
            {
              href:
                r.status === 'scheduled'
                  ? `#/jobs/${encodeURIComponent(r.jobId)}`
                  : link('/messages', { jobId: r.jobId }),
            },
            r.status === 'scheduled' ? 'See the scheduled send' : 'Follow the messages',
          ),
          h(
            'a',
            {
              href: '#/compose',
              class: 'button',
              onclick: (ev) => {
                ev.preventDefault();
                newCompose();
              },
            },
            'Write another message',
          ),
        ),
      );
      showInfo(
        r.status === 'scheduled'
          ? `Scheduled: ${r.valid} recipients, about ${money(r.estimatedPrice, currency)}.`
          : `Sent: ${r.queued} queued, ${r.failed} not sent. Estimated price ${money(r.estimatedPrice, currency)}.`,
      );
    } catch (err) {
      // Not sent (or not known to be): the same key is kept, so trying again cannot send twice.
      confirm.disabled = false;
      showError(err);
    }
  }

  /** A new composition: the page drawn again, empty (the same key is never reused). */
  function newCompose() {
    view.replaceChildren();
    composePage(view, { query: new URLSearchParams() }).catch(showError);
  }

  const form = h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        if (reviewButton.disabled) return;
        let body;
        let sendAt;
        try {
          body = composed();
          sendAt = sendAtValue();
        } catch (err) {
          return showError(err);
        }
        lock(true);
        result.replaceChildren();
        try {
          const estimateBody = { ...body };
          if (mediaLink || mediaInput.files?.length)
            Object.assign(estimateBody, {
              type: 'MMS',
              media: [{ url: mediaLink || 'https://example.com/file' }],
            });
          const res = await api('POST', '/messages/estimate', { json: estimateBody });
          showReview(body, sendAt, res.data);
        } catch (err) {
          lock(false);
          showError(err);
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
    insert,
    box.counter,
    h(
      'label',
      { class: 'inline' },
      smartBox,
      ' Smart encoding (curly quotes, dashes and ellipses sent as GSM-7)',
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'When'),
      h(
        'div',
        { class: 'inline' },
        h('label', {}, whenNow, ' Now'),
        h('label', {}, whenLater, ' At a time: '),
        field('Date and time', sendAtInput, 'Your browser’s time zone'),
      ),
      h(
        'label',
        { class: 'inline' },
        quiet,
        ' Marketing: hold messages that would arrive between 21:00 and 8:00 for the recipient',
      ),
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
    h(
      'fieldset',
      {},
      h('legend', {}, 'Test'),
      h('div', { class: 'inline' }, testMobile, testButton),
      h('small', {}, 'Sends this text once to your own mobile, as the first chosen contact would get it.'),
    ),
    h('div', { class: 'actions' }, reviewButton),
    result,
  );
  view.append(h('h2', {}, 'Compose'), form, review);
  drawChips();
  show();
}
