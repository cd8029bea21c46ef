import type { Db } from '../../../db/client.ts';
import { findAccount } from '../../../db/queries/accounts.ts';
import { type SendFigures, sendJobFigures } from '../../../db/queries/send-estimate.ts';
import { AppError, fail } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import {
  type SendMessagesInput,
  type SendMessagesResult,
  type SendSettings,
  sendMessages,
} from './send-messages.ts';

/** What a send would do, answered without doing it (the review before a send). */
export interface SendEstimate extends SendFigures {
  /** Every recipient the send addresses: `valid` + `failed`. */
  requested: number;
  /** Messages that would be queued (and charged). */
  valid: number;
  /** Recipients that would not be sent (opted out, blocked, invalid number, empty text), uncharged. */
  failed: number;
  /** The price the send would be charged now, in `currency`. */
  estimatedPrice: number;
  currency: string;
  /** The balance now, and whether it covers the price. */
  balance: number;
  balanceCovers: boolean;
}

/**
 * Runs the send exactly as POST …/messages would (recipients resolved, opted-out and invalid ones
 * failed, each text rendered, encoded, counted and priced) in a transaction that is rolled back, and
 * answers its figures: nothing is created, sent or charged. Unlike a send, a balance that cannot
 * cover the price is not an error here: `balanceCovers` is false. Every other error of a send is.
 */
export async function estimateSend(
  db: Db,
  accountId: string,
  input: SendMessagesInput,
  by: Actor,
  settings: SendSettings,
): Promise<SendEstimate> {
  const seen: { value?: { result: SendMessagesResult; figures: SendFigures } } = {};
  let covers = true;
  try {
    await sendMessages(db, accountId, input, by, settings, {
      estimate: true,
      within: async (tx, result) => {
        seen.value = { result, figures: await sendJobFigures(tx, accountId, result.jobId) };
      },
    });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'ACCT-002' && seen.value)) throw err;
    covers = false;
  }
  if (!seen.value) fail('MSG-002');
  const account = (await findAccount(db, accountId)) ?? fail('ACCT-001');
  const { result, figures } = seen.value;
  return {
    requested: result.requested,
    valid: result.valid,
    failed: result.failed,
    estimatedPrice: result.estimatedPrice,
    currency: account.currency,
    balance: Number(account.balance),
    balanceCovers: covers,
    ...figures,
  };
}
