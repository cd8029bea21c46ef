import { randomBytes, randomFillSync } from 'node:crypto';
import { V7Generator } from 'uuidv7';

/**
 * The ids' random bits, drawn from the system's CSPRNG 4 KiB at a time: the package's own buffer
 * holds 8 words, one getRandomValues call for every two to four ids (~3 µs each, ~170 ms of a
 * bench:peer SMPP round's Node CPU, where each message takes two ids or more).
 */
class PooledRandom {
  private readonly words = new Uint32Array(1024);
  private next = this.words.length;
  nextUint32(): number {
    if (this.next >= this.words.length) {
      randomFillSync(this.words);
      this.next = 0;
    }
    return this.words[this.next++];
  }
}

const ids = new V7Generator(new PooledRandom());

/** A new record id: UUIDv7, sortable by creation and unguessable (74 random bits). */
export function newId(): string {
  return ids.generate().toString();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can name a record at all (anything else is a 404 without a query). */
export function isId(value: string): boolean {
  return UUID.test(value);
}

/** A random token for secrets and client ids, base64url. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
