// The review before a send (Compose) or a campaign's launch (Campaigns): what POST
// …/messages/estimate says the send would do, as figures a person reads before confirming, and the
// panel that shows them with Confirm and "Back to edit". One wording for both pages.
import { h, money } from './dom.js';

/**
 * Why some recipients would not get the message, in words.
 * @param {string} code
 * @param {string} description
 */
export function plainFailure(code, description) {
  if (code === 'CONT-010') return 'opted out or blocked';
  if (code === 'CONT-001') return 'with an invalid number';
  if (code === 'MSG-004') return 'whose text would be empty';
  if (code === 'MSG-005') return 'whose text would be too long';
  return `not sendable (${description})`;
}

/**
 * The review's rows, [label, text], from an estimate.
 * @param {any} e the estimate (POST …/messages/estimate)
 * @param {{ sender: string, when: string | undefined, quietHours: boolean }} send the sender
 *   group's name, the time it goes (undefined: now), whether quiet hours apply
 * @returns {string[][]}
 */
export function reviewRows(e, { sender, when, quietHours }) {
  const plural = (n) => (n === 1 ? '' : 's');
  const failures = e.failures.map((f) => `${f.count} ${plainFailure(f.code, f.description)}`);
  const rows = [
    [
      'Recipients',
      `${e.valid} will get it${e.failed ? `; ${e.failed} will not: ${failures.join(', ')}` : ''}`,
    ],
    ['Segments', `${e.segments} in all${e.valid ? ` (${(e.segments / e.valid).toFixed(1)} a message)` : ''}`],
    [
      'Encoding',
      e.ucs2
        ? `${e.ucs2} of ${e.valid} message${plural(e.valid)} in UCS-2 (a character outside GSM-7 in the text or a recipient’s name): 70 characters a segment instead of 160`
        : 'GSM-7 (160 characters a segment)',
    ],
    ['Cost', `${money(e.estimatedPrice, e.currency)} (balance ${money(e.balance, e.currency)})`],
    ['Sender', sender],
    ['When', when ? new Date(when).toLocaleString() : 'Now'],
  ];
  if (e.held) rows.push(['Quiet hours', `${e.held} held until 8:00 in the recipient’s time zone`]);
  else if (quietHours) rows.push(['Quiet hours', 'None held: it is daytime for every recipient']);
  return rows;
}

/**
 * The confirm button's words: "Schedule for 3 recipients", or `verb` ("Send", "Launch") now.
 * @param {any} e the estimate
 * @param {string} verb
 * @param {string | undefined} when
 */
export function confirmLabel(e, verb, when) {
  const n = `${e.valid} recipient${e.valid === 1 ? '' : 's'}`;
  return when ? `Schedule for ${n}` : `${verb} to ${n}`;
}

/**
 * Fills `panel` with the review (heading, the figures, a warning when the balance cannot cover it
 * or nobody would get it, Confirm and "Back to edit"), shows it and moves the focus to it. Confirm
 * is disabled when nobody would get the message or the balance cannot cover it.
 * @param {HTMLElement} panel
 * @param {{ heading: string, headingId?: string, what: string, estimate: any, rows: string[][],
 *   confirm: HTMLButtonElement, back: () => void }} review `what` names the send in the warning
 *   ("this send", "this campaign")
 */
export function showReviewPanel(panel, { heading, headingId, what, estimate: e, rows, confirm, back }) {
  confirm.disabled = e.valid === 0 || !e.balanceCovers;
  panel.replaceChildren(
    h('h3', headingId ? { id: headingId } : {}, heading),
    h(
      'dl',
      { class: 'review-figures' },
      rows.map(([k, v]) => [
        h('dt', {}, k),
        h('dd', { 'data-test': `review-${k.toLowerCase().replace(/ /g, '-')}` }, v),
      ]),
    ),
    ...(e.balanceCovers
      ? []
      : [
          h(
            'p',
            { class: 'warn', role: 'alert' },
            `The balance cannot cover ${what}: add credit on Billing first.`,
          ),
        ]),
    ...(e.valid === 0 ? [h('p', { class: 'warn', role: 'alert' }, 'Nobody would get this message.')] : []),
    h('div', { class: 'actions' }, confirm, h('button', { type: 'button', onclick: back }, 'Back to edit')),
  );
  panel.hidden = false;
  panel.focus();
}
