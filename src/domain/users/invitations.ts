import type { Config } from '../../config.ts';
import { type Db, withTx } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import {
  findUser,
  findUserByEmail,
  insertInvitation,
  markInvitationAccepted,
  putMember,
  type Role,
  setPassword,
  takeInvitation,
  upsertUser,
} from '../../db/queries/users.ts';
import { fail } from '../../errors.ts';
import { randomToken } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { hashPassword } from './passwords.ts';
import { tokenHash } from './sessions.ts';

/** The link a person opens to accept an invitation (or set a new password). */
export function invitationLink(config: Config, token: string): string {
  return `${config.publicUrl}/console/#/accept/${token}`;
}

/**
 * Invites a person to an account with a role: answers a link, shown once (the token is stored only
 * as its hash) and valid for CONSOLE_INVITATION_HOURS. `kind: 'reset'` makes a link that sets a new
 * password for an existing user (the CLI's reset-password). `email: true` records that its link is
 * about to be e-mailed (emailInvitation, once this has committed).
 */
export async function createInvitation(
  db: Db,
  config: Config,
  accountId: string,
  input: { email: string; role: Role; kind?: 'invite' | 'reset' },
  by: Actor,
  opts: { email?: boolean } = {},
) {
  const token = `inv_${randomToken(32)}`;
  const row = await insertInvitation(db, {
    id: tokenHash(token),
    accountId,
    email: input.email.trim().toLowerCase(),
    role: input.role,
    kind: input.kind ?? 'invite',
    hours: config.console.invitationHours,
    by,
    emailStatus: opts.email ? 'sending' : 'none',
  });
  return {
    id: row.id,
    link: invitationLink(config, token),
    token,
    email: row.email,
    role: row.role,
    expires: row.expires_at.toISOString(),
  };
}

/** What an invitation link is for, before it is accepted (USER-006 when unknown, used or expired). */
export async function describeInvitation(db: Db, token: string) {
  return withTx(db, async (tx) => {
    const inv = await takeInvitation(tx, tokenHash(token));
    if (!inv) fail('USER-006');
    const existing = await findUserByEmail(tx, inv.email);
    const account = await findAccount(tx, inv.account_id);
    return {
      email: inv.email,
      role: inv.role,
      kind: inv.kind,
      account: { id: inv.account_id, name: account?.name ?? '' },
      // An existing user keeps their password: accepting only adds the account.
      needsPassword: inv.kind === 'reset' || !existing?.password_hash,
      expires: inv.expires_at.toISOString(),
    };
  });
}

/**
 * Accepts an invitation once: the person becomes a member with the invited role. A new user (or a
 * reset link) sets a password; an existing user's password is never changed by an invitation, so
 * whoever holds the link cannot take over an account that person has elsewhere. Answers the user id.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  input: { password?: string; firstName?: string; lastName?: string; acceptTerms?: boolean },
): Promise<string> {
  return withTx(db, async (tx) => {
    const inv = await takeInvitation(tx, tokenHash(token));
    if (!inv) fail('USER-006');
    const user = await upsertUser(tx, {
      email: inv.email,
      firstName: input.firstName,
      lastName: input.lastName,
    });
    if (inv.kind === 'reset' || !user.password_hash) {
      const hash = await hashPassword(input.password);
      await setPassword(tx, user.id, {
        hash,
        firstName: input.firstName,
        lastName: input.lastName,
        acceptTerms: input.acceptTerms,
      });
    }
    if (inv.kind === 'invite') await putMember(tx, inv.account_id, user.id, inv.role, inv.created_by);
    await markInvitationAccepted(tx, inv.id);
    const after = await findUser(tx, user.id);
    return after!.id;
  });
}
