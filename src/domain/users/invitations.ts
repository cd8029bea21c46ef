import type { Config } from '../../config.ts';
import { type Db, withTx } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import {
  findUserByEmail,
  insertInvitation,
  markInvitationAccepted,
  noteSignedIn,
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
import type { SignInGuard } from './sign-in-guard.ts';

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

/**
 * What an invitation link is for, before it is accepted (USER-006 when unknown, used or expired).
 * Nothing about the person: whether the e-mail already has a Sparrow password is not said (the
 * link's holder may be the inviting administrator, who must not learn it from here).
 */
export async function describeInvitation(db: Db, token: string) {
  const inv = await takeInvitation(db, tokenHash(token));
  if (!inv) fail('USER-006');
  const account = await findAccount(db, inv.account_id);
  return {
    email: inv.email,
    role: inv.role,
    kind: inv.kind,
    account: { id: inv.account_id, name: account?.name ?? '' },
    expires: inv.expires_at.toISOString(),
  };
}

/**
 * Accepts an invitation once: the person becomes a member with the invited role, and is signed in.
 * An invitation never signs anyone in as an existing user without their password:
 *
 * - An e-mail that already has a password must give it (`password`, checked by `guard` exactly as
 *   a sign-in: per-address and per-e-mail limits, the lock; a wrong or missing one is USER-001 and
 *   counts as a failed sign-in). The password is never changed, the invitation stays open.
 * - An e-mail with no password sets one (`password`, USER-008 when too short or long), unless
 *   `hasPassword` says the person means their existing password: then it is checked as a sign-in
 *   (an e-mail with none answers USER-001, as a wrong password).
 * - A reset link (`kind: 'reset'`, made only by the operator's CLI) sets a new password.
 *
 * Answers the user id.
 */
export async function acceptInvitation(
  db: Db,
  guard: SignInGuard,
  token: string,
  input: {
    password?: string;
    hasPassword?: boolean;
    firstName?: string;
    lastName?: string;
    acceptTerms?: boolean;
  },
  ip: string,
  device?: string,
): Promise<string> {
  const id = tokenHash(token);
  const open = await takeInvitation(db, id);
  if (!open) fail('USER-006');
  const before = await findUserByEmail(db, open.email);
  const signsIn = open.kind === 'invite' && (Boolean(before?.password_hash) || input.hasPassword === true);
  // The password is checked (or hashed) before the invitation is taken: a refusal leaves it open.
  const verified = signsIn
    ? await guard.verify(
        open.email,
        input.password ?? '',
        ip,
        device && device.length <= 200 ? tokenHash(device) : undefined,
      )
    : undefined;
  const hash = signsIn ? undefined : await hashPassword(input.password, guard.hashCost);
  return withTx(db, async (tx) => {
    const inv = await takeInvitation(tx, id);
    if (!inv) fail('USER-006');
    const user = await upsertUser(tx, {
      email: inv.email,
      firstName: input.firstName,
      lastName: input.lastName,
    });
    if (verified) {
      // Its password changed since it was checked: check again.
      if (user.password_hash !== verified.password_hash) fail('USER-001');
      await noteSignedIn(tx, user.id);
    } else {
      // A password set meanwhile (another link accepted at the same instant) is never replaced.
      if (inv.kind === 'invite' && user.password_hash) fail('USER-001');
      await setPassword(tx, user.id, {
        hash: hash!,
        firstName: input.firstName,
        lastName: input.lastName,
        acceptTerms: input.acceptTerms,
      });
    }
    if (inv.kind === 'invite') await putMember(tx, inv.account_id, user.id, inv.role, inv.created_by);
    await markInvitationAccepted(tx, inv.id);
    return user.id;
  });
}
