import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { DEFAULT_SECRET_HASH_COST } from '../../config.ts';

const r = 8;
const p = 1;
const KEYLEN = 32;
// scrypt's memory is 128 · N · r bytes: 128 MiB at the highest cost allowed (16).
const MAXMEM = 160 * 1024 * 1024;

function derive(secret: string, salt: Buffer, n: number, rr: number, pp: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEYLEN, { N: n, r: rr, p: pp, maxmem: MAXMEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/**
 * Hashes a secret as `scrypt$N$r$p$salt$hash` (base64url parts), N = 2^cost (config.secretHashCost:
 * 15 by default, ~60 ms here, slow enough to blunt guessing, cheap for a token call). A stored hash
 * carries its own N: verifySecret reads it, so a changed cost changes new hashes only.
 */
export async function hashSecret(secret: string, cost = DEFAULT_SECRET_HASH_COST): Promise<string> {
  const n = 2 ** cost;
  const salt = randomBytes(16);
  const key = await derive(secret, salt, n, r, p);
  return ['scrypt', n, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Checks a secret against its stored hash in constant time. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [alg, n, rr, pp, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(secret, Buffer.from(salt, 'base64url'), Number(n), Number(rr), Number(pp));
  return key.length === expected.length && timingSafeEqual(key, expected);
}
