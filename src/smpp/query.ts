import type { PDU } from 'smpp';
import type { Db } from '../db/client.ts';
import { type SmppCredentialRow, smppMessageState } from '../db/queries/smpp.ts';
import { isId } from '../util/ids.ts';
import { STATUS } from './status.ts';
import type { SubmitAnswer } from './submit.ts';

/** message_state (SMPP 3.4 §5.2.28) of our statuses: ENROUTE until final. */
const STATE: Record<string, number> = {
  queued: 1,
  sending: 1,
  sent: 1,
  delivered: 2,
  undelivered: 5,
  failed: 8,
};
const FINAL = new Set(['delivered', 'undelivered', 'failed']);

/** query_sm: the state of a message the account sent (ESME_RQUERYFAIL for an id it does not know). */
export async function querySm(db: Db, pdu: PDU, credential: SmppCredentialRow): Promise<SubmitAnswer> {
  const id = typeof pdu.message_id === 'string' ? pdu.message_id : '';
  const row = isId(id) ? await smppMessageState(db, credential.account_id, id) : undefined;
  if (!row) return { status: STATUS.RQUERYFAIL };
  return {
    status: STATUS.ROK,
    params: {
      message_id: id,
      final_date: FINAL.has(row.status) ? row.updated_at : '',
      message_state: STATE[row.status] ?? 7,
      error_code: 0,
    },
  };
}
