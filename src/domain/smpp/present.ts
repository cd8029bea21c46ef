import type { Static } from '@sinclair/typebox';
import type { SmppCredentialRow } from '../../db/queries/smpp.ts';
import type { SmppCredential, SmppCredentialWithPassword } from '../../schemas/smpp.ts';
import { stamp } from '../actor.ts';

/** An SMPP credential as the API shows it (never its password, except once at creation). */
export function presentSmppCredential(
  row: SmppCredentialRow,
  password: string,
): Static<typeof SmppCredentialWithPassword>;
export function presentSmppCredential(row: SmppCredentialRow): Static<typeof SmppCredential>;
export function presentSmppCredential(
  row: SmppCredentialRow,
  password?: string,
): Static<typeof SmppCredential> & { password?: string } {
  return {
    id: row.id,
    type: 'smppCredential' as const,
    systemId: row.system_id,
    name: row.name,
    throughput: row.throughput_mps,
    created: stamp(row.created_at, row.created_by),
    ...(row.revoked_at
      ? {
          revoked: {
            at: row.revoked_at.toISOString(),
            reason: row.revoked_reason ?? '',
            description:
              'The person who created it (and so saw its password) left the account: it binds no more and its binds ' +
              'were closed.',
          },
        }
      : {}),
    ...(password === undefined ? {} : { password }),
  };
}
