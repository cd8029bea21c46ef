import { isUtf8 } from 'node:buffer';

/**
 * Checks a byte stream is UTF-8 as it passes, chunk by chunk (a character may be split between
 * two), and says on which line (1-based, counting LF) the first invalid byte is. The valid case,
 * nearly every upload, costs one native check and one newline count per chunk; only a chunk that
 * fails is walked byte by byte to find the place. Invalid: what the WHATWG decoder (TextDecoder
 * `fatal`) refuses: stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF, and a
 * character cut off by the end.
 */
export class Utf8Lines {
  /** The LFs of the bytes checked so far. */
  private lines = 0;
  /** The first bytes of a character the last chunk ended inside (0–3 bytes). */
  private carry: Buffer = Buffer.alloc(0);

  /** Checks the next chunk: undefined when it is valid so far, else the line of the invalid byte. */
  push(chunk: Buffer): number | undefined {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const cut = bytes.length - incompleteTail(bytes);
    const whole = bytes.subarray(0, cut);
    if (!isUtf8(whole)) {
      const at = firstInvalid(whole);
      return this.lines + countLf(whole.subarray(0, at)) + 1;
    }
    this.lines += countLf(whole);
    this.carry = Buffer.from(bytes.subarray(cut));
    return undefined;
  }

  /** The end of the stream: undefined when valid, else the line a cut-off character is on. */
  end(): number | undefined {
    return this.carry.length > 0 ? this.lines + 1 : undefined;
  }
}

function countLf(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** The length of a character begun in the last 1–3 bytes and not finished there (0 if none). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/** The index of the first byte that does not start a valid UTF-8 character (bytes.length if none). */
function firstInvalid(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // no overlong forms
      if (b === 0xed) hi = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // no overlong forms
      if (b === 0xf4) hi = 0x8f; // nothing past U+10FFFF
    } else return i;
    if (i + need >= bytes.length) return i; // cut off
    const second = bytes[i + 1];
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return bytes.length;
}
