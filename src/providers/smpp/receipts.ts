import type { ProviderError, StatusUpdate } from '../types.ts';

/** A delivery receipt read from deliver_sm: the SMSC message id and our status. */
export interface SmppReceipt {
  messageId: string;
  /** undefined for intermediate states (ENROUTE, ACCEPTD…): nothing moves. */
  status: StatusUpdate['status'] | undefined;
  error?: ProviderError;
}

const STAT: Record<string, StatusUpdate['status'] | undefined> = {
  DELIVRD: 'delivered',
  UNDELIV: 'undelivered',
  EXPIRED: 'undelivered',
  UNKNOWN: 'undelivered',
  REJECTD: 'failed',
  DELETED: 'failed',
  ENROUTE: undefined,
  ACCEPTD: undefined,
  SCHEDULED: undefined,
};

/** SMPP 5.0 §4.7.15 message_state values, by number, as receipt stat words. */
const MESSAGE_STATE = [
  'SCHEDULED',
  'ENROUTE',
  'DELIVRD',
  'EXPIRED',
  'DELETED',
  'UNDELIV',
  'ACCEPTD',
  'UNKNOWN',
  'REJECTD',
  'SKIPPED',
];

/** Whether a deliver_sm's esm_class marks it as an SMSC delivery receipt (message type bits 2–5 = 0001). */
export function isReceipt(esmClass: number): boolean {
  return (esmClass & 0x3c) === 0x04;
}

/**
 * Reads a receipt from the receipted_message_id / message_state TLVs when present, else from the
 * text (`id:… sub:… dlvrd:… submit date:… done date:… stat:DELIVRD err:000 text:…`).
 */
export function parseReceipt(
  text: string,
  tlvs: { receiptedMessageId?: string; messageState?: number },
): SmppReceipt | undefined {
  const idMatch = /\bid:\s*([^\s]+)/i.exec(text);
  const statMatch = /\bstat:\s*([A-Z]+)/i.exec(text);
  const errMatch = /\berr:\s*([0-9A-Za-z]+)/i.exec(text);
  const messageId = tlvs.receiptedMessageId || idMatch?.[1];
  const stat =
    tlvs.messageState !== undefined && MESSAGE_STATE[tlvs.messageState]
      ? MESSAGE_STATE[tlvs.messageState]
      : statMatch?.[1]?.toUpperCase();
  if (!messageId || !stat) return undefined;
  const status = STAT[stat];
  const receipt: SmppReceipt = { messageId, status };
  if (status === 'undelivered' || status === 'failed') {
    const err = errMatch?.[1];
    receipt.error = {
      code: `SMPP-${stat}`,
      description: `The SMSC reported ${stat}${err && !/^0+$/.test(err) ? ` (err ${err})` : ''}`,
    };
  }
  return receipt;
}
