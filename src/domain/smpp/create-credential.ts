import { randomInt } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import { insertSmppCredential, type SmppCredentialRow } from '../../db/queries/smpp.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { hashSecret } from '../auth/secrets.ts';

/** What a new SMPP credential may be given. */
export interface CreateSmppCredentialInput {
  name?: string;
  /** submit_sm a second across the credential's binds; the server's default when absent. */
  throughput?: number;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomText(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/**
 * Issues a system_id and password for ESMEs of an account to bind with. SMPP 3.4 carries at most
 * 15 characters of system_id and 8 of password (§5.2.1–5.2.2), so the password is 8 random
 * characters of 62 (about 47 bits; guessing is cut off by the bind failure budget). It is stored
 * only as its scrypt hash and answered once, here.
 */
export async function createSmppCredential(
  db: Db,
  accountId: string,
  input: CreateSmppCredentialInput,
  by: Actor,
  defaultThroughput: number,
  hashCost?: number,
): Promise<{ credential: SmppCredentialRow; password: string }> {
  const password = randomText(MIXED, 8);
  const passwordHash = await hashSecret(password, hashCost);
  for (let attempt = 0; ; attempt++) {
    try {
      const credential = await insertSmppCredential(db, accountId, {
        id: newId(),
        systemId: `sp${randomText(LOWER, 10)}`,
        passwordHash,
        name: input.name ?? 'SMPP',
        throughputMps: input.throughput ?? defaultThroughput,
        by,
      });
      return { credential, password };
    } catch (err) {
      // 36^10 system ids: a collision is all but impossible, but one more draw costs nothing.
      if ((err as { code?: string }).code !== '23505' || attempt > 2) throw err;
    }
  }
}
