/** Small files of each accepted kind (and hostile look-alikes) for the hosted-file tests. */
import { randomBytes } from 'node:crypto';

const pad = (head: Buffer, total = 200) =>
  Buffer.concat([head, randomBytes(Math.max(0, total - head.length))]);

export const PNG = pad(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
export const JPEG = pad(Buffer.from('ffd8ffe000104a464946', 'hex'));
export const GIF = pad(Buffer.from('GIF89a', 'latin1'));
export const WEBP = pad(
  Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x20, 0, 0, 0]), Buffer.from('WEBPVP8 ')]),
);
export const MP3 = pad(Buffer.from('ID3\x04\x00\x00', 'latin1'));
export const MP3_FRAME = pad(Buffer.from([0xff, 0xfb, 0x90, 0x64]));
export const AAC = pad(Buffer.from([0xff, 0xf1, 0x50, 0x80]));
export const AMR = pad(Buffer.from('#!AMR\n', 'latin1'));
export const OGG = pad(Buffer.from('OggS\x00\x02', 'latin1'));
export const WAV = pad(
  Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x20, 0, 0, 0]), Buffer.from('WAVEfmt ')]),
);
const box = (brand: string) =>
  Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from(`ftyp${brand}`, 'latin1'), Buffer.alloc(4)]);
export const MP4 = pad(box('isom'));
export const M4A = pad(box('M4A '));
export const THREE_GP = pad(box('3gp5'));
export const MOV = pad(box('qt  '));
export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
export const VCARD = Buffer.from(
  'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nTEL:+14155550100\r\nEND:VCARD\r\n',
);

export const HTML = Buffer.from(
  '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>',
);
export const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
/** A GIF header followed by markup and script: valid as a GIF's first bytes, HTML to a sniffing browser. */
export const GIF_HTML_POLYGLOT = Buffer.from(
  'GIF89a/*<html><body><script>alert(document.domain)</script></body></html>*/=1;',
  'latin1',
);

/** A multipart/form-data body from parts; answers the payload and its Content-Type. */
export function multipart(
  parts: { name: string; filename?: string; type?: string; data: Buffer | string }[],
): { payload: Buffer; contentType: string } {
  const boundary = `----sparrow${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
