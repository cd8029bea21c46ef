import type { Db } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import { setInvitationEmailed } from '../../db/queries/users.ts';
import type { Mailer } from '../../providers/mail/smtp.ts';

/** What became of an invitation's e-mail, as the API shows it. */
export interface EmailOutcome {
  status: 'none' | 'sent' | 'failed';
  /** The SMTP server's (or the address check's) reason, when `failed`. */
  error?: string;
}

/** An invitation just committed, with its link (which only exists until this request ends). */
export interface CommittedInvitation {
  id: string;
  accountId: string;
  email: string;
  role: string;
  link: string;
  expires: string;
}

/**
 * E-mails a committed invitation's link to the invited person through `mailer`, and records the
 * outcome on the invitation. Never throws: a failure is logged and answered as `failed` with its
 * reason (the invitation stands, and the administrator still has the link to pass on).
 */
export async function emailInvitation(
  db: Db,
  deps: { mailer: Mailer; log: (msg: string) => void },
  inv: CommittedInvitation,
): Promise<EmailOutcome> {
  let outcome: EmailOutcome;
  try {
    const account = await findAccount(db, inv.accountId);
    await deps.mailer.send({
      to: inv.email,
      subject: `You are invited to ${account?.name || 'an account'} on Sparrow`,
      text: invitationText(account?.name ?? '', inv),
    });
    outcome = { status: 'sent' };
  } catch (err) {
    const reason = String((err as Error)?.message ?? err)
      .replace(/\s+/g, ' ')
      .slice(0, 300);
    deps.log(`invitation e-mail to ${inv.email} (account ${inv.accountId}) failed: ${reason}`);
    outcome = { status: 'failed', error: reason };
  }
  try {
    await setInvitationEmailed(db, inv.accountId, inv.id, {
      status: outcome.status as 'sent' | 'failed',
      error: outcome.error,
    });
  } catch (err) {
    deps.log(`invitation e-mail to ${inv.email}: its outcome was not recorded: ${(err as Error).message}`);
  }
  return outcome;
}

/** The e-mail's body: who invites to what, the link, until when. */
function invitationText(accountName: string, inv: CommittedInvitation): string {
  return [
    `You are invited to join ${accountName ? `the account "${accountName}"` : 'an account'} on Sparrow as ${inv.role}.`,
    '',
    'Open this link to set your password (or, if you already have one, to add the account) and sign in:',
    '',
    inv.link,
    '',
    `The link can be used once, until ${inv.expires} (UTC).`,
    'If you were not expecting this invitation, ignore this e-mail.',
    '',
  ].join('\n');
}
