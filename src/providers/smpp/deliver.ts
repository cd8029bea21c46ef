import { randomUUID } from 'node:crypto';
import smpp, { type PDU, type Session } from 'smpp';
import type { RecentMap } from '../submission-memo.ts';
import { type InboundMessage, InboundRefused, type ProviderSink, type StatusUpdate } from '../types.ts';
import { concatInfo, fromAddress, InboundParts, messageText } from './pdu.ts';
import { isReceipt, parseReceipt } from './receipts.ts';

/**
 * deliver_sm of an SMPP bind: delivery receipts are gathered for `receiptBatchMs` and handed to the sink
 * in one call (the SMSC gets its answers after that, a temporary error if the sink failed, so it sends
 * them again); other deliver_sm are inbound messages, reassembled from concatenated parts. An
 * inbound message the sink refuses for good (InboundRefused) is answered ESME_RINVDSTADR or
 * ESME_RINVSRCADR, which an SMSC does not deliver again; any other failure a temporary error.
 */
export class DeliverSmHandler {
  private receipts: { update: StatusUpdate; pdu: PDU; session: Session }[] = [];
  private receiptTimer: NodeJS.Timeout | undefined;
  private readonly inboundParts = new InboundParts();

  constructor(
    /** The instance whose bind this is: its receipts and inbound messages carry the name. */
    private readonly provider: string,
    private readonly sink: () => ProviderSink | undefined,
    /** SMSC ids of parts after the first → the first part's id. */
    private readonly partAliases: RecentMap<string, string>,
    private readonly receiptBatchMs: number,
    private readonly log: (msg: string) => void,
  ) {}

  /** Answers one deliver_sm: a receipt (batched to the sink) or an inbound message (reassembled if in parts). */
  handle(session: Session, pdu: PDU): void {
    const { text, udh } = messageText(pdu.message_payload ?? pdu.short_message);
    if (isReceipt(Number(pdu.esm_class ?? 0))) {
      const receipt = parseReceipt(text, {
        receiptedMessageId:
          typeof pdu.receipted_message_id === 'string' ? pdu.receipted_message_id : undefined,
        messageState: typeof pdu.message_state === 'number' ? pdu.message_state : undefined,
      });
      if (!receipt?.status) {
        session.send(pdu.response());
        return;
      }
      const first = this.partAliases.get(receipt.messageId);
      // A later part's receipt only matters when it reports a failure; delivery is the first part's.
      if (first && receipt.status === 'delivered') {
        session.send(pdu.response());
        return;
      }
      const update: StatusUpdate = {
        provider: this.provider,
        providerMessageId: first ?? receipt.messageId,
        status: receipt.status,
        ...(receipt.error ? { error: receipt.error } : {}),
        at: new Date(),
      };
      this.receipts.push({ update, pdu, session });
      this.receiptTimer ??= setTimeout(() => void this.flush(), this.receiptBatchMs);
      return;
    }
    void this.onInbound(session, pdu, text, udh);
  }

  /** Hands the gathered receipts to the sink in one call; the SMSC gets its answers after that. */
  async flush(): Promise<void> {
    clearTimeout(this.receiptTimer);
    this.receiptTimer = undefined;
    const batch = this.receipts;
    this.receipts = [];
    if (!batch.length) return;
    let status = smpp.ESME_ROK;
    try {
      const sink = this.sink();
      if (!sink) throw new Error('no sink');
      await sink.statuses(batch.map((b) => b.update));
    } catch (err) {
      // A temporary error makes the SMSC deliver the receipts again later.
      this.log(`receipt delivery failed: ${(err as Error).message}`);
      status = smpp.ESME_RX_T_APPN;
    }
    for (const b of batch) b.session.send(b.pdu.response({ command_status: status }));
  }

  private async onInbound(session: Session, pdu: PDU, text: string, udh: Buffer[]): Promise<void> {
    const from = fromAddress(String(pdu.source_addr ?? ''), Number(pdu.source_addr_ton ?? 0));
    const to = fromAddress(String(pdu.destination_addr ?? ''), Number(pdu.dest_addr_ton ?? 0));
    let full = text;
    const concat = concatInfo(udh);
    if (concat && concat.count > 1) {
      const assembled = this.inboundParts.add(`${from}|${to}|${concat.ref}`, concat, text);
      if (assembled === undefined) {
        session.send(pdu.response());
        return;
      }
      full = assembled;
    }
    const message: InboundMessage = {
      provider: this.provider,
      providerMessageId: `smpp-in-${randomUUID()}`,
      from,
      to,
      text: full,
      media: [],
      at: new Date(),
    };
    let status = smpp.ESME_ROK;
    try {
      const sink = this.sink();
      if (!sink) throw new Error('no sink');
      await sink.inbound(message);
    } catch (err) {
      if (err instanceof InboundRefused) {
        status = err.refused === 'destination' ? smpp.ESME_RINVDSTADR : smpp.ESME_RINVSRCADR;
      } else {
        this.log(`inbound delivery failed: ${(err as Error).message}`);
        status = smpp.ESME_RX_T_APPN;
      }
    }
    session.send(pdu.response({ command_status: status }));
  }
}
