import type { Queryable } from '../client.ts';

/** A token signing key pair as stored (JWK form). */
export interface SigningKeyRow {
  kid: string;
  alg: string;
  private_jwk: Record<string, unknown>;
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
  k: { kid: string; alg: string; privateJwk: object; publicJwk: object },
): Promise<void> {
  await db.query('INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk) VALUES ($1, $2, $3, $4)', [
    k.kid,
    k.alg,
    k.privateJwk,
    k.publicJwk,
  ]);
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
