// Files: host an image, sound, video, PDF or vCard for MMS (POST /v1/tools/sharefile), and show
// its public link and when it expires. The service keeps no list of them: the page shows what this
// tab uploaded.
import { shareFile } from '../api.js';
import { field, h, table, when } from '../dom.js';
import { showError, showInfo } from '../flash.js';
import { link } from '../router.js';

/** The types the service accepts (the file picker offers them; the server checks the bytes). */
export const MEDIA_ACCEPT = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/aac',
  'audio/mp4',
  'audio/amr',
  'audio/ogg',
  'audio/wav',
  'video/mp4',
  'video/3gpp',
  'video/quicktime',
  'application/pdf',
  'text/vcard',
  '.vcf',
].join(',');

/** Uploads of this tab, newest first (gone with the page's memory: links stay valid until they expire). */
const uploaded = [];

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** #/files */
export async function filesPage(view) {
  const input = h('input', { type: 'file', name: 'media', required: true, accept: MEDIA_ACCEPT });
  const button = h('button', { type: 'submit' }, 'Upload');
  const list = h('div', {});
  const draw = () =>
    list.replaceChildren(
      table(
        [
          ['File', (f) => f.name],
          ['Type', (f) => f.contentType],
          ['Size', (f) => size(f.size)],
          [
            'Link',
            (f) =>
              h(
                'a',
                { href: f.link, target: '_blank', rel: 'noopener noreferrer', class: 'file-link' },
                f.link,
              ),
          ],
          ['Expires', (f) => when(f.expires)],
          ['', (f) => h('a', { href: link('/compose', { media: f.link }) }, 'Send as MMS')],
        ],
        uploaded,
        'No files uploaded in this session yet.',
      ),
    );
  const form = h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const file = input.files?.[0];
        if (!file) return showError(new Error('Choose a file.'));
        button.disabled = true;
        try {
          const r = await shareFile(file);
          uploaded.unshift({ ...r, name: file.name });
          input.value = '';
          showInfo(`Uploaded. The link works until ${when(r.expires)}.`);
          draw();
        } catch (err) {
          showError(err);
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h3', {}, 'Upload a file'),
    field(
      'File',
      input,
      'An image, sound, video, PDF or vCard (the size limit is the server’s SHAREFILE_MAX_BYTES, 5 MiB by default)',
    ),
    h('div', { class: 'actions' }, button),
  );
  view.append(
    h('h2', {}, 'Files'),
    h(
      'p',
      { class: 'muted' },
      'Files hosted for MMS or links in texts, at an unguessable public link that expires.',
    ),
    form,
    h('h3', {}, 'Uploaded'),
    list,
  );
  draw();
}
