import type { Readable } from 'node:stream';
import type { Db } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import { type MessageExportRow, messagesAfter } from '../../db/queries/exports.ts';
import { fail } from '../../errors.ts';
import { REPORT_MAX_DAYS } from '../reports/summary.ts';
import { csvStream, keyset, takeExportSlot } from './csv.ts';

const DAY_MS = 86_400_000;

/** What a messages export may be narrowed to, as the API takes it. */
export interface MessageExportQuery {
  from: string;
  to: string;
  status?: string;
  direction?: 'outbound' | 'inbound';
}

const iso = (d: Date | null) => (d ? d.toISOString() : '');

/**
 * The account's messages created in [from, to) (at most REPORT_MAX_DAYS days), optionally of one
 * status and direction, as CSV in creation order, read in batches as the client takes the text.
 * `contactNames`: whether the caller may read contacts (else the contact is its id only, as the
 * messages API shows it without `contacts:read`). A range that ends before it starts or is too long
 * → 400 VAL-001; a third export at once → 429 RATE-001.
 */
export async function exportMessages(
  db: Db,
  accountId: string,
  q: MessageExportQuery,
  contactNames: boolean,
): Promise<{ filename: string; stream: Readable }> {
  const from = new Date(q.from);
  const to = new Date(q.to);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
    fail('VAL-001', '`from` and `to` must be timestamps.');
  if (from >= to) fail('VAL-001', '`from` must be before `to`.');
  if (to.getTime() - from.getTime() > REPORT_MAX_DAYS * DAY_MS)
    fail('VAL-001', `An export covers at most ${REPORT_MAX_DAYS} days.`);
  const account = await findAccount(db, accountId);
  if (!account) fail('AUTH-003');
  const release = takeExportSlot(accountId);
  if (!release) fail('RATE-001', 'Exports of this account are running; try again when one has ended.');
  const filter = {
    from,
    to,
    status: q.status,
    outgoing: q.direction === undefined ? undefined : q.direction === 'outbound',
  };
  const header = [
    'id',
    'created',
    'direction',
    'from',
    'to',
    'contactId',
    ...(contactNames ? ['contactName'] : []),
    'status',
    'segments',
    'encoding',
    'price',
    'currency',
    'errorCode',
    'error',
    'text',
    'campaignId',
    'jobId',
    'sent',
    'delivered',
  ];
  const rows = async function* () {
    for await (const m of keyset<MessageExportRow>(
      (after, limit) => messagesAfter(db, accountId, filter, after, limit),
      (m) => m.id,
    )) {
      yield [
        m.id,
        iso(m.created_at),
        m.outgoing ? 'outbound' : 'inbound',
        m.from_number,
        m.to_number,
        m.contact_id,
        ...(contactNames ? [[m.contact_first_name, m.contact_last_name].filter(Boolean).join(' ')] : []),
        m.status,
        m.segments,
        m.encoding,
        m.price,
        account.currency,
        m.error_code,
        m.error_description,
        m.body,
        m.campaign_id,
        m.job_id,
        iso(m.sent_at),
        iso(m.delivered_at),
      ];
    }
  };
  return {
    filename: `messages-${from.toISOString().slice(0, 10)}-to-${to.toISOString().slice(0, 10)}.csv`,
    stream: csvStream(header, rows(), release),
  };
}
