import { ConfigError } from '../../config.ts';
import { type SecretBox, SecretBoxError } from '../../crypto/secret-box.ts';
import { type Db, withTx } from '../../db/client.ts';
import { privateKeys, setPrivateKey } from '../../db/queries/signing-keys.ts';
import { setWebhookSecrets, webhookSecrets } from '../../db/queries/webhooks.ts';
import { openPrivateJwk, sealPrivateJwk } from '../auth/tokens.ts';

/** What a pass changed. */
export interface SealReport {
  signingKeys: number;
  webhooks: number;
}

// Serialises passes of several processes starting at once (any constant shared by them will do).
const LOCK_KEY = 0x5ec4e75;

/**
 * Brings every secret at rest to the form the box writes: with SECRETS_KEY, plain-text rows (and
 * rows sealed under SECRETS_KEY_PREVIOUS) are sealed under the current key; without it, rows sealed
 * under SECRETS_KEY_PREVIOUS are opened back to plain text. Idempotent: a row already in that form
 * is left alone, so it costs one read when nothing is to do. Safe with several processes: the work
 * runs in one transaction under an advisory lock, on rows locked and re-read inside it.
 * A sealed row no key opens is a configuration error (the start-up line names the setting).
 */
export async function sealSecretsAtRest(db: Db, box: SecretBox): Promise<SealReport> {
  try {
    const keys = await privateKeys(db, false);
    const hooks = await webhookSecrets(db, false);
    const stale = (v: string | Record<string, unknown> | null) =>
      v !== null && !(typeof v === 'string' ? box.isCurrent(v) : !box.enabled);
    if (
      !keys.some((k) => stale(k.private_jwk)) &&
      !hooks.some((h) => stale(h.secret) || stale(h.previous_secret))
    )
      return { signingKeys: 0, webhooks: 0 };

    return await withTx(db, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const report = { signingKeys: 0, webhooks: 0 };
      for (const k of await privateKeys(tx, true)) {
        if (!stale(k.private_jwk)) continue;
        await setPrivateKey(tx, k.kid, sealPrivateJwk(box, openPrivateJwk(box, k.private_jwk)));
        report.signingKeys++;
      }
      const reseal = (v: string) => (box.isCurrent(v) ? v : box.seal(box.open(v)));
      for (const h of await webhookSecrets(tx, true)) {
        if (!stale(h.secret) && !stale(h.previous_secret)) continue;
        await setWebhookSecrets(
          tx,
          h.account_id,
          h.id,
          reseal(h.secret),
          h.previous_secret === null ? null : reseal(h.previous_secret),
        );
        report.webhooks++;
      }
      return report;
    });
  } catch (err) {
    if (err instanceof SecretBoxError) throw new ConfigError(err.message);
    throw err;
  }
}
