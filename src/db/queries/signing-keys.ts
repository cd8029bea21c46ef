import type { Queryable } from '../client.ts';

/** A token signing key pair as stored (JWK form). */
export interface SigningKeyRow {
  kid: string;
  alg: string;
  /** The JWK, or (with SECRETS_KEY) a sealed string of it: see crypto/secret-box.ts. */
  private_jwk: Record<string, unknown> | string;
  public_jwk: Record<string, unknown>;
  created_at: Date;
  retired_at: Date | null;
}

export async function activeSigningKeys(db: Queryable): Promise<SigningKeyRow[]> {
  const { rows } = await db.query<SigningKeyRow>(
    'SELECT * FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC',
  );
  return rows;
}

export async function insertSigningKey(
  db: Queryable,
  k: { kid: string; alg: string; privateJwk: object | string; publicJwk: object },
): Promise<void> {
  // Stringified here: pg would send a JS string as text, which is not JSON.
  await db.query('INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk) VALUES ($1, $2, $3, $4)', [
    k.kid,
    k.alg,
    JSON.stringify(k.privateJwk),
    JSON.stringify(k.publicJwk),
  ]);
}

/** Every key's kid and stored private JWK (see domain/secrets); `lock` takes row locks for re-sealing. */
export async function privateKeys(
  db: Queryable,
  lock: boolean,
): Promise<{ kid: string; private_jwk: Record<string, unknown> | string }[]> {
  const { rows } = await db.query(
    `SELECT kid, private_jwk FROM signing_keys ORDER BY kid${lock ? ' FOR UPDATE' : ''}`,
  );
  return rows;
}

export async function setPrivateKey(db: Queryable, kid: string, stored: object | string): Promise<void> {
  await db.query('UPDATE signing_keys SET private_jwk = $2 WHERE kid = $1', [kid, JSON.stringify(stored)]);
}

/** Retires every key but the newest `keep` ones (their tokens stop verifying). */
export async function retireOldKeys(db: Queryable, keep: number): Promise<void> {
  await db.query(
    `UPDATE signing_keys SET retired_at = now()
     WHERE retired_at IS NULL AND kid NOT IN (
       SELECT kid FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT $1)`,
    [keep],
  );
}
