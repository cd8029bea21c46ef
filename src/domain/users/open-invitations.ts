import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { deleteOpenInvitation, type InvitationRow, listOpenInvitations } from '../../db/queries/users.ts';
import { fail } from '../../errors.ts';
import type { Mailer } from '../../providers/mail/smtp.ts';
import type { Actor } from '../actor.ts';
import { stamp } from '../actor.ts';
import type { Page } from '../page.ts';
import { inviteUser } from './members.ts';

function presentOpenInvitation(i: InvitationRow) {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    expires: i.expires_at.toISOString(),
    emailStatus: i.email_status,
    created: stamp(i.created_at, i.created_by),
  };
}

/** An open invitation as the API shows it (never its link: only its hash is stored). */
export type OpenInvitation = ReturnType<typeof presentOpenInvitation>;

/** The account's invitations not yet accepted and not expired, newest first. */
export async function listInvitations(
  db: Db,
  accountId: string,
  page: { offset: number; limit: number },
): Promise<Page<OpenInvitation>> {
  const { rows, total } = await listOpenInvitations(db, accountId, page.offset, page.limit);
  return { items: rows.map(presentOpenInvitation), totalCount: total, ...page };
}

/** Revokes an open invitation: its link stops working. USER-011 when the account has no such open one. */
export async function revokeInvitation(db: Db, accountId: string, invitationId: string): Promise<void> {
  if (!(await deleteOpenInvitation(db, accountId, invitationId))) fail('USER-011');
}

/**
 * Sends an open invitation again: the old link stops working and a new one, for the same e-mail
 * and role, is made (and e-mailed when a mailer is configured), since links are stored only as
 * their hash. USER-011 when the account has no such open invitation.
 */
export async function resendInvitation(
  db: Db,
  deps: { config: Config; mailer: Mailer | undefined; log: (msg: string) => void },
  accountId: string,
  invitationId: string,
  by: Actor,
) {
  const old = (await deleteOpenInvitation(db, accountId, invitationId)) ?? fail('USER-011');
  return inviteUser(db, deps, accountId, { email: old.email, role: old.role }, by);
}
