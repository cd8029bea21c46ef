import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The prefix of a sealed value: `enc:v1:<iv>:<tag>:<ciphertext>`, each part base64url. */
export const SEALED_PREFIX = 'enc:v1:';

/** A sealed value this process cannot open: encrypted under a key it was not given. */
export class SecretBoxError extends Error {}

/**
 * Encryption of secrets at rest (AES-256-GCM, node:crypto): a fresh 96-bit IV per value, the GCM
 * tag authenticates it. Without a key it stores and answers values as they are (plain text).
 */
export interface SecretBox {
  /** Whether values are sealed (SECRETS_KEY is set). */
  readonly enabled: boolean;
  /** The stored form of a secret: sealed under the current key, or the text itself without one. */
  seal(plain: string): string;
  /** The secret of a stored value: sealed (under the current or previous key) or plain text. */
  open(stored: string): string;
  /** Whether a stored value is already in the form seal() would write (sealed under the current key, or plain without a key). */
  isCurrent(stored: string): boolean;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

function sealWith(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${SEALED_PREFIX}${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
}

function openWith(key: Buffer, stored: string): string | undefined {
  const [iv, tag, ct] = stored.slice(SEALED_PREFIX.length).split(':');
  if (iv === undefined || tag === undefined || ct === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined; // wrong key or altered value: the tag does not verify
  }
}

/** A box with the current key (or none) and the keys it may still open old values with. */
export function createSecretBox(key?: Buffer, previous: Buffer[] = []): SecretBox {
  return {
    enabled: key !== undefined,
    seal: (plain) => (key ? sealWith(key, plain) : plain),
    open(stored) {
      if (!isSealed(stored)) return stored;
      for (const k of key ? [key, ...previous] : previous) {
        const plain = openWith(k, stored);
        if (plain !== undefined) return plain;
      }
      throw new SecretBoxError(
        key
          ? 'a secret at rest is encrypted under a key this process does not have (set SECRETS_KEY_PREVIOUS to the key it was sealed with)'
          : 'secrets at rest are encrypted: set SECRETS_KEY',
      );
    },
    isCurrent(stored) {
      if (!key) return !isSealed(stored);
      return isSealed(stored) && openWith(key, stored) !== undefined;
    },
  };
}

/**
 * A 32-byte key from its text: 64 hex digits, or base64 / base64url of 32 bytes (`openssl rand
 * -base64 32`). Answers undefined for anything else.
 */
export function parseKey(raw: string): Buffer | undefined {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text, 'base64');
    if (key.length === 32) return key;
  }
  return undefined;
}
