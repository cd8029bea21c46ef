// A read-only box holding text to copy (a URL, an embed snippet) with a Copy button.
import { h } from './dom.js';
import { showInfo } from './flash.js';

/** copyBox('Hosted page', url) → a labelled read-only field and a button copying its value. */
export function copyBox(label, text, { rows = 0 } = {}) {
  const box = rows
    ? h('textarea', { readonly: true, rows, 'aria-label': label })
    : h('input', { readonly: true, 'aria-label': label });
  box.value = text;
  const copy = async () => {
    box.select();
    try {
      await navigator.clipboard.writeText(text);
      showInfo(`${label} copied.`);
    } catch {
      // No clipboard permission (an insecure page, a refused prompt): the text stays selected.
      showInfo(`${label} selected: press Ctrl+C (⌘C) to copy it.`);
    }
  };
  return h(
    'div',
    { class: 'copy-box' },
    h('span', {}, label),
    box,
    h(
      'button',
      { type: 'button', class: 'secondary', onclick: copy, 'aria-label': `Copy ${label.toLowerCase()}` },
      'Copy',
    ),
  );
}
