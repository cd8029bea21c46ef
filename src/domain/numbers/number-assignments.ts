// Numbers on real carriers are the operator's to give (docs/routing.md, "Who may send from a
// number"): `sparrow numbers assign|unassign|list`, and the start-up check of numbers taken before
// assignments existed.

import type { ProviderInstanceConfig } from '../../config.ts';
import { type Db, withTx } from '../../db/client.ts';
import { removeNumberFromGroups } from '../../db/queries/groups.ts';
import {
  deleteAssignment,
  insertAssignment,
  listAssignments,
  unverifyUnassigned,
} from '../../db/queries/number-assignments.ts';
import { heldNumber, markReleased, setPhoneNumberVerified } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { isProviderName } from '../../providers/names.ts';
import type { Actor } from '../actor.ts';
import { takePhoneNumber } from './take-phone-number.ts';
import { askedProviders, type NumberVerifier } from './verify-with-provider.ts';

/** What an assignment did, as the CLI prints it. */
export interface AssignmentResult {
  accountId: string;
  number: string;
  provider: string;
  /** The account's phone number of that number (made by the assignment when it held none). */
  phoneNumberId: string;
  /** The number's own provider: `provider`, or another one the assignment lets it be routed from. */
  numberProvider: string;
  verified: boolean;
}

/** A number as E.164: the account's own spelling when it holds it, else a valid number with its +. */
function e164(input: string): string {
  const compact = input.replace(/[\s()\-.]/g, '');
  if (/^\+[1-9][0-9]{1,14}$/.test(compact)) return compact;
  const parsed = parseMobile(input);
  if (!parsed || !compact.startsWith('+')) fail('NUM-004');
  return parsed.number;
}

function checkProvider(provider: string): void {
  if (!isProviderName(provider)) fail('VAL-001', `provider: "${provider}" is not an instance name.`);
  if (provider === 'simulator')
    fail('VAL-001', 'provider: the simulator has its own inventory: numbers are assigned on a real carrier.');
}

/**
 * Assigns a number on a provider (a real carrier: SMPP instance, or a Twilio-compatible one the
 * account may route through) to an account, the operator's word that the number is the account's
 * there. The account holds no such number: it is taken for the account on that provider, verified,
 * in its default group. It holds it on that provider: it is marked verified. It holds it on another
 * provider: that stays its provider; a route may now also send it through this one. Refused: a
 * number held by another account (NUM-002, naming it: `unassign` frees it), or assigned on this
 * provider to another account (NUM-002). Assigning again is harmless.
 */
export async function assignNumber(
  db: Db,
  input: { accountId: string; number: string; provider: string },
  by: Actor,
): Promise<AssignmentResult> {
  checkProvider(input.provider);
  const number = e164(input.number);
  const { accountId, provider } = input;
  const held = await heldNumber(db, number);
  if (held && held.account_id !== accountId)
    fail(
      'NUM-002',
      `${number} is held by account ${held.account_id} (${held.provider}): \`sparrow numbers unassign ${held.account_id} ${number} --provider ${held.provider}\` releases it.`,
    );
  const standing = await insertAssignment(db, { provider, number, accountId, by });
  if (standing.account_id !== accountId)
    fail('NUM-002', `${number} is assigned on ${provider} to account ${standing.account_id}.`);
  if (held) {
    const row =
      held.provider === provider && !held.verified
        ? ((await setPhoneNumberVerified(db, accountId, held.id, true, by)) ?? held)
        : held;
    return {
      accountId,
      number,
      provider,
      phoneNumberId: row.id,
      numberProvider: row.provider,
      verified: row.verified,
    };
  }
  // Taken as the account would take it; the operator's word stands for the provider's answer.
  const operator: NumberVerifier = async () => true;
  try {
    const made = await takePhoneNumber(db, accountId, { number, provider }, by, operator);
    return { accountId, number, provider, phoneNumberId: made.id, numberProvider: provider, verified: true };
  } catch (err) {
    // Taken by someone in the meantime, or not a number: the assignment goes with the failure.
    await deleteAssignment(db, { provider, number, accountId });
    throw err;
  }
}

/**
 * Takes back an account's assignment of a number on a provider. The account's number on that
 * provider (assigned, or taken before assignments existed) is released: it leaves its groups and
 * its queued messages fail (NUM-001). Answers whether there was an assignment and whether a number
 * was released; neither: NUM-001.
 */
export async function unassignNumber(
  db: Db,
  input: { accountId: string; number: string; provider: string },
  by: Actor,
): Promise<{ accountId: string; number: string; provider: string; unassigned: boolean; released: boolean }> {
  checkProvider(input.provider);
  const number = e164(input.number);
  const { accountId, provider } = input;
  return withTx(db, async (tx) => {
    const unassigned = await deleteAssignment(tx, { provider, number, accountId });
    const held = await heldNumber(tx, number);
    let released = false;
    if (held && held.account_id === accountId && held.provider === provider) {
      released = !!(await markReleased(tx, accountId, held.id, by));
      await removeNumberFromGroups(tx, accountId, held.id);
    }
    if (!unassigned && !released)
      fail('NUM-001', `${number} is neither assigned to nor held by account ${accountId} on ${provider}.`);
    return { accountId, number, provider, unassigned, released };
  });
}

/** The assignments of an account, or of all accounts, as the CLI prints them. */
export async function listNumberAssignments(db: Db, accountId: string | null) {
  return (await listAssignments(db, accountId)).map((a) => ({
    accountId: a.account_id,
    number: a.number,
    provider: a.provider,
    assignedAt: a.created_at.toISOString(),
  }));
}

/**
 * At start: a number on a provider that is assigned (not the simulator, not a Twilio-compatible
 * instance of this configuration) that is verified without an assignment was taken before
 * assignments existed, when any account could take any carrier number: it is marked unverified
 * (it cannot send, NUM-010) until the operator assigns it. Answers what was marked.
 */
export async function unverifyUnassignedNumbers(db: Db, instances: readonly ProviderInstanceConfig[]) {
  return unverifyUnassigned(db, askedProviders(instances), {
    id: 'system',
    name: 'Sparrow (number assignments)',
    source: 'system',
  });
}

/** One line for the log per number marked, then a count beyond the first ten. */
export function unverifiedNotes(
  marked: { account_id: string; number: string; provider: string }[],
): string[] {
  const lines = marked
    .slice(0, 10)
    .map(
      (m) =>
        `number ${m.number} of account ${m.account_id} on ${m.provider} is not assigned: marked unverified (sparrow numbers assign ${m.account_id} ${m.number} --provider ${m.provider})`,
    );
  if (marked.length > 10)
    lines.push(`… and ${marked.length - 10} more numbers marked unverified (sparrow numbers list)`);
  return lines;
}
