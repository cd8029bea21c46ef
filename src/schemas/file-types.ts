/**
 * The file types hosted files may have (what MMS carries: images, audio, video, PDF, vCard) and
 * a magic-number sniffer that checks the bytes are what the type claims. Nothing a browser would
 * run (HTML, SVG, JavaScript, XML) is on the list, so the public listener never serves markup.
 */

/** What the first bytes of a file show it to be. */
export type Kind =
  | 'jpeg'
  | 'png'
  | 'gif'
  | 'webp'
  | 'mp3'
  | 'adts'
  | 'amr'
  | 'amr-wb'
  | 'ogg'
  | 'wav'
  | 'bmff'
  | 'quicktime'
  | 'pdf'
  | 'vcard';

/** An accepted type: the Content-Type it is served with, its file extension, the kinds it may sniff as. */
export interface FileType {
  type: string;
  extension: string;
  kinds: readonly Kind[];
}

const BMFF: readonly Kind[] = ['bmff'];

/** Accepted types by canonical name. */
export const FILE_TYPES: Record<string, FileType> = {
  'image/jpeg': { type: 'image/jpeg', extension: 'jpg', kinds: ['jpeg'] },
  'image/png': { type: 'image/png', extension: 'png', kinds: ['png'] },
  'image/gif': { type: 'image/gif', extension: 'gif', kinds: ['gif'] },
  'image/webp': { type: 'image/webp', extension: 'webp', kinds: ['webp'] },
  'audio/mpeg': { type: 'audio/mpeg', extension: 'mp3', kinds: ['mp3'] },
  'audio/aac': { type: 'audio/aac', extension: 'aac', kinds: ['adts'] },
  'audio/mp4': { type: 'audio/mp4', extension: 'm4a', kinds: BMFF },
  'audio/amr': { type: 'audio/amr', extension: 'amr', kinds: ['amr'] },
  'audio/amr-wb': { type: 'audio/amr-wb', extension: 'awb', kinds: ['amr-wb'] },
  'audio/ogg': { type: 'audio/ogg', extension: 'ogg', kinds: ['ogg'] },
  'audio/wav': { type: 'audio/wav', extension: 'wav', kinds: ['wav'] },
  'audio/3gpp': { type: 'audio/3gpp', extension: '3gp', kinds: BMFF },
  'video/mp4': { type: 'video/mp4', extension: 'mp4', kinds: BMFF },
  'video/3gpp': { type: 'video/3gpp', extension: '3gp', kinds: BMFF },
  'video/3gpp2': { type: 'video/3gpp2', extension: '3g2', kinds: BMFF },
  'video/quicktime': { type: 'video/quicktime', extension: 'mov', kinds: ['bmff', 'quicktime'] },
  'application/pdf': { type: 'application/pdf', extension: 'pdf', kinds: ['pdf'] },
  'text/vcard': { type: 'text/vcard', extension: 'vcf', kinds: ['vcard'] },
};

/** Other names clients give the same types. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-aac': 'audio/aac',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'text/x-vcard': 'text/vcard',
};

/** Declared types that say nothing: the type is then the one the bytes show. */
export const UNTYPED = new Set(['application/octet-stream', 'binary/octet-stream']);

/** Every declared Content-Type the upload takes (the OpenAPI document lists them). */
export const DECLARABLE_TYPES = [...Object.keys(FILE_TYPES), ...Object.keys(ALIASES), ...UNTYPED];

/** The media type of a header value: lower case, parameters dropped ('' when none). */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0].trim().toLowerCase();
}

/** The accepted type a declared media type names, if any (aliases resolved). */
export function fileTypeOf(mediaType: string): FileType | undefined {
  const name = ALIASES[mediaType] ?? mediaType;
  return Object.hasOwn(FILE_TYPES, name) ? FILE_TYPES[name] : undefined;
}

/** Bytes of the head the sniffer needs (shorter files are sniffed whole). */
export const SNIFF_BYTES = 32;

const ascii = (b: Buffer, at: number, text: string) =>
  b.length >= at + text.length && b.toString('latin1', at, at + text.length) === text;

const QUICKTIME_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

/** What the first bytes show, or undefined when they match no accepted kind. */
export function sniff(head: Buffer): Kind | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (ascii(head, 0, '\x89PNG\r\n\x1a\n')) return 'png';
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return 'gif';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return 'webp';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (ascii(head, 0, '#!AMR\n')) return 'amr';
  if (ascii(head, 0, '#!AMR-WB\n')) return 'amr-wb';
  if (ascii(head, 0, '%PDF-')) return 'pdf';
  if (ascii(head, 4, 'ftyp')) return 'bmff';
  if (QUICKTIME_ATOMS.some((atom) => ascii(head, 4, atom))) return 'quicktime';
  if (ascii(head, 0, 'ID3')) return 'mp3';
  if (head.length >= 2 && head[0] === 0xff) {
    const b = head[1];
    // ADTS (AAC): sync 0xFFF, layer 00. MPEG audio: sync 0xFFE, a version and layer that exist.
    if ((b & 0xf6) === 0xf0) return 'adts';
    if ((b & 0xe0) === 0xe0 && ((b >> 3) & 3) !== 1 && ((b >> 1) & 3) !== 0) return 'mp3';
  }
  const text = head
    .toString('latin1')
    .replace(/^\xef\xbb\xbf/, '')
    .trimStart();
  if (/^BEGIN:VCARD\r?\n/i.test(text)) return 'vcard';
  return undefined;
}

/** The type of a file declared without one (application/octet-stream), from what it sniffs as. */
export function typeOfKind(kind: Kind, head: Buffer): FileType {
  if (kind === 'bmff') {
    const brand = head.toString('latin1', 8, 12);
    if (brand === 'qt  ') return FILE_TYPES['video/quicktime'];
    if (brand.startsWith('3g2')) return FILE_TYPES['video/3gpp2'];
    if (brand.startsWith('3gp')) return FILE_TYPES['video/3gpp'];
    if (brand === 'M4A ' || brand === 'M4B ') return FILE_TYPES['audio/mp4'];
    return FILE_TYPES['video/mp4'];
  }
  const found = Object.values(FILE_TYPES).find((t) => t.kinds.includes(kind));
  // Every kind belongs to a type (the table above); the fallback is never reached.
  return found ?? FILE_TYPES['video/quicktime'];
}
