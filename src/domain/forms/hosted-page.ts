import type { FormFieldDef, FormRow } from '../../db/queries/forms.ts';
import { HONEYPOT_FIELD } from './form-input.ts';
import { CONSENT_FIELD, PAGE_URL_FIELD, submittedText } from './submission-input.ts';

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"'`]/g,
    (c) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c] as string,
  );
}

const STYLE = `body{font-family:system-ui,sans-serif;background:#f5f6f8;margin:0;padding:1rem;color:#1d2330}
main{max-width:32rem;margin:2rem auto;background:#fff;border-radius:.5rem;padding:1.5rem 2rem;box-shadow:0 1px 4px #0002}
label{display:block;margin:.9rem 0 .3rem;font-weight:600}
input,select,textarea{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #b8bfcc;border-radius:.3rem;font:inherit}
input[type=checkbox]{width:auto;margin-right:.5rem}
.check{display:flex;align-items:flex-start;font-weight:400}
.error{color:#b00020;font-size:.9rem;margin:.25rem 0 0}
.summary{background:#fdecee;border:1px solid #b00020;padding:.6rem;border-radius:.3rem}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
button{margin-top:1.3rem;padding:.7rem 1.4rem;border:0;border-radius:.3rem;background:#2357d9;color:#fff;font:inherit;cursor:pointer}`;

const AUTOCOMPLETE: Record<string, string> = {
  mobile: 'tel',
  firstName: 'given-name',
  lastName: 'family-name',
  email: 'email',
};

/** A complete HTML document around `body`. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

function control(f: FormFieldDef, id: string, value: unknown, describedBy: string): string {
  const name = escapeHtml(f.name);
  const common = `id="${id}" name="${name}"${f.required ? ' required' : ''}${describedBy}`;
  const text = escapeHtml(submittedText(value) ?? '');
  switch (f.type) {
    case 'textarea':
      return `<textarea ${common} rows="4">${text}</textarea>`;
    case 'select':
      return `<select ${common}><option value="">Choose…</option>${(f.options ?? [])
        .map(
          (o) =>
            `<option value="${escapeHtml(o)}"${submittedText(value) === o ? ' selected' : ''}>${escapeHtml(o)}</option>`,
        )
        .join('')}</select>`;
    case 'checkbox':
      return '';
    default: {
      const type = f.type === 'text' ? 'text' : f.type;
      const auto = AUTOCOMPLETE[f.name] ? ` autocomplete="${AUTOCOMPLETE[f.name]}"` : '';
      const step = f.type === 'number' ? ' step="any"' : '';
      return `<input type="${type}" ${common} value="${text}"${auto}${step}>`;
    }
  }
}

function fieldHtml(f: FormFieldDef, index: number, value: unknown, error?: string): string {
  const id = `f${index}`;
  const err = error ? `<p class="error" id="${id}-error">${escapeHtml(error)}</p>` : '';
  const describedBy = error ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  if (f.type === 'checkbox') {
    const on = ['on', 'true', '1', 'yes'].includes((submittedText(value) ?? '').toLowerCase());
    return `<label class="check"><input type="checkbox" id="${id}" name="${escapeHtml(f.name)}" value="on"${
      on ? ' checked' : ''
    }${f.required ? ' required' : ''}${describedBy}>${escapeHtml(f.label)}</label>${err}`;
  }
  return `<label for="${id}">${escapeHtml(f.label)}${f.required ? '' : ' <small>(optional)</small>'}</label>${control(
    f,
    id,
    value,
    describedBy,
  )}${err}`;
}

/**
 * The hosted page of a form: every field (re-filled with `values` and annotated with `errors` after a
 * refused submission), the hidden page address, the honeypot and the consent checkbox. Every piece
 * of text is escaped.
 */
export function renderFormPage(
  form: FormRow,
  opts: { values?: Record<string, unknown>; errors?: Record<string, string>; pageUrl?: string } = {},
): string {
  const values = opts.values ?? {};
  const errors = opts.errors ?? {};
  const count = Object.keys(errors).length;
  const summary = count
    ? `<p class="summary" role="alert">Please correct the ${count === 1 ? 'field' : `${count} fields`} marked below.</p>`
    : '';
  const fields = form.fields.map((f, i) => fieldHtml(f, i, values[f.name], errors[f.name])).join('\n');
  const consent = form.consent_text?.trim()
    ? `<label class="check"><input type="checkbox" name="${CONSENT_FIELD}" value="on" required${
        values[CONSENT_FIELD] ? ' checked' : ''
      }>${escapeHtml(form.consent_text)}</label>${
        errors[CONSENT_FIELD] ? `<p class="error">${escapeHtml(errors[CONSENT_FIELD])}</p>` : ''
      }`
    : '';
  const body = `<h1>${escapeHtml(form.name)}</h1>
${form.description ? `<p>${escapeHtml(form.description)}</p>` : ''}${summary}
<form method="post" accept-charset="utf-8">
${fields}
<input type="hidden" name="${PAGE_URL_FIELD}" value="${escapeHtml(opts.pageUrl ?? '')}">
<div class="hp" aria-hidden="true"><label>Leave this empty<input type="text" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></div>
${consent}
<button type="submit">${escapeHtml(form.submit_label || 'Submit')}</button>
</form>`;
  return htmlPage(form.name, body);
}

/** The page shown after a submission is accepted. */
export function renderThanksPage(form: Pick<FormRow, 'name' | 'success_message'>): string {
  return htmlPage(
    form.name,
    `<h1>${escapeHtml(form.name)}</h1><p role="status">${escapeHtml(
      form.success_message || 'Thank you! Your details were received.',
    )}</p>`,
  );
}

/** The page of an unknown or inactive form (and of any other refusal). */
export function renderMessagePage(title: string, text: string): string {
  return htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}
