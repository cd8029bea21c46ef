import type { Queryable } from '../../db/client.ts';
import { listTransactions as queryTransactions } from '../../db/queries/billing.ts';
import type { Page } from '../page.ts';
import { presentTransaction, type Transaction } from './present-billing.ts';

/**
 * A page of the account's money movements, newest first: credits (`checkout`, `topup`) and debits
 * (`send`: a bulk send, net of refunds for messages that failed; `message`: a single message).
 */
export async function listTransactions(
  db: Queryable,
  accountId: string,
  types: string[] | undefined,
  page: { offset: number; limit: number },
): Promise<Page<Transaction>> {
  const { rows, total } = await queryTransactions(db, accountId, types, page);
  return { items: rows.map(presentTransaction), totalCount: total, ...page };
}
