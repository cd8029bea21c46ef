import type { Config } from '../../config.ts';
import { type Db, type Queryable, withTx } from '../../db/client.ts';
import { clientsMadeBy, revokeClientsFor } from '../../db/queries/api-clients.ts';
import { revokeSmppCredentialsMadeBy } from '../../db/queries/smpp.ts';
import {
  countAdministrators,
  findMember,
  findUserByEmail,
  listMembers,
  putMember,
  type Role,
  removeMember,
  setPassword,
  upsertUser,
} from '../../db/queries/users.ts';
import { failPendingDeliveries } from '../../db/queries/webhook-deliveries.ts';
import { pauseWebhooksHeldBy } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import type { Mailer } from '../../providers/mail/smtp.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentClient } from '../auth/account-clients.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Page } from '../page.ts';
import { presentSmppCredential } from '../smpp/present.ts';
import { CREATOR_REMOVED } from '../webhooks/holders.ts';
import { presentWebhook } from '../webhooks/present.ts';
import { type EmailOutcome, emailInvitation } from './email-invitation.ts';
import { createInvitation } from './invitations.ts';
import { hashPassword } from './passwords.ts';
import { presentUser } from './present-user.ts';

export async function listUsers(
  db: Db,
  accountId: string,
  offset: number,
  limit: number,
): Promise<Page<ReturnType<typeof presentUser>>> {
  const { rows, total } = await listMembers(db, accountId, offset, limit);
  return { items: rows.map(presentUser), totalCount: total, offset, limit };
}

export async function getUser(db: Db, accountId: string, userId: string) {
  if (!isId(userId)) fail('USER-005');
  const m = await findMember(db, accountId, userId);
  if (!m) fail('USER-005');
  return presentUser(m);
}

/**
 * Invites a person by e-mail: answers the invitation (its link is shown once) and what became of
 * its e-mail. With a mailer (SMTP_URL) the link is e-mailed once the invitation has committed; a
 * failure to send is answered as `failed`, never thrown. An e-mail already a member changes nothing
 * until the link is accepted.
 */
export async function inviteUser(
  db: Db,
  deps: { config: Config; mailer: Mailer | undefined; log: (msg: string) => void },
  accountId: string,
  input: { email: string; role: Role },
  by: Actor,
) {
  const { mailer } = deps;
  const inv = await createInvitation(db, deps.config, accountId, input, by, { email: Boolean(mailer) });
  const email: EmailOutcome = mailer
    ? await emailInvitation(db, { mailer, log: deps.log }, { ...inv, accountId })
    : { status: 'none' };
  return { ...inv, emailOutcome: email };
}

/** Changes a member's role; the last administrator cannot be demoted (USER-007). */
export async function changeRole(
  db: Db,
  accountId: string,
  userId: string,
  role: Role,
  by: Actor,
  tokens?: TokenService,
) {
  if (!isId(userId)) fail('USER-005');
  const user = await withTx(db, async (tx) => {
    const admins = await countAdministrators(tx, accountId);
    const m = await findMember(tx, accountId, userId);
    if (!m) fail('USER-005');
    if (m.role === 'Administrator' && role !== 'Administrator' && admins <= 1) fail('USER-007');
    await putMember(tx, accountId, userId, role, by);
    return presentUser((await findMember(tx, accountId, userId))!);
  });
  // The person's console tokens carry the new role's scopes at most from now on in this process.
  tokens?.noteMembershipChanged(userId, accountId);
  return user;
}

/**
 * Removes a member from the account (not the person's other accounts); never the last administrator.
 * What acts in their name goes with them, in the same transaction (cutOffLeaver); answers what was
 * cut off. `tokens` forgets the revoked clients' tokens in this process at once.
 */
export async function removeUser(db: Db, accountId: string, userId: string, tokens?: TokenService) {
  if (!isId(userId)) fail('USER-005');
  const cut = await withTx(db, async (tx) => {
    const admins = await countAdministrators(tx, accountId);
    const m = await findMember(tx, accountId, userId);
    if (!m) fail('USER-005');
    if (m.role === 'Administrator' && admins <= 1) fail('USER-007');
    await removeMember(tx, accountId, userId);
    return cutOffLeaver(tx, accountId, userId);
  });
  for (const c of cut.apiClients) tokens?.noteRevoked(c.id);
  tokens?.noteMembershipChanged(userId, accountId);
  return {
    smppCredentials: cut.smppCredentials.map((c) => presentSmppCredential(c)),
    apiClients: cut.apiClients.map(presentClient),
    webhooks: cut.webhooks.map((w) => presentWebhook(w)),
  };
}

/**
 * Cuts off what acts in the name of a person leaving an account, or whose secret they were shown:
 * the API clients they created (and the ones created through those) are revoked; the SMPP
 * credentials created by them or those clients are revoked (no bind, open binds closed within the
 * SMPP server's credential check); the webhooks any of them created, pointed somewhere or rotated
 * the secret of are paused until an administrator confirms them (their address may be the
 * person's), their pending deliveries given up (replayable). Every way a membership ends calls
 * this in the transaction that ends it; a change of role does not.
 */
export async function cutOffLeaver(tx: Queryable, accountId: string, userId: string) {
  const clientIds = await clientsMadeBy(tx, accountId, userId);
  const apiClients = await revokeClientsFor(tx, accountId, clientIds, CREATOR_REMOVED);
  const smppCredentials = await revokeSmppCredentialsMadeBy(
    tx,
    accountId,
    { userId, clientIds },
    CREATOR_REMOVED,
  );
  const webhooks = await pauseWebhooksHeldBy(
    tx,
    accountId,
    [`user:${userId}`, ...clientIds],
    CREATOR_REMOVED,
  );
  await failPendingDeliveries(
    tx,
    webhooks.map((w) => w.id),
    'The subscription was paused: a person who held it left the account.',
  );
  return { apiClients, smppCredentials, webhooks };
}

/**
 * Makes a user with a password a member of an account (the CLI and BOOTSTRAP_ADMIN_*): creates the
 * user if absent; sets the password when given. Answers the user id and whether it was created.
 */
export async function ensureUser(
  db: Db,
  accountId: string,
  input: {
    email: string;
    password?: string;
    role: Role;
    firstName?: string;
    lastName?: string;
    hashCost?: number;
  },
  by: Actor,
): Promise<{ userId: string; created: boolean }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
    fail('VAL-001', 'The e-mail address is invalid.');
  const hash = input.password === undefined ? undefined : await hashPassword(input.password, input.hashCost);
  return withTx(db, async (tx) => {
    const before = await findUserByEmail(tx, email);
    const user = await upsertUser(tx, { email, firstName: input.firstName, lastName: input.lastName });
    if (hash) await setPassword(tx, user.id, { hash });
    await putMember(tx, accountId, user.id, input.role, by);
    return { userId: user.id, created: !before };
  });
}
