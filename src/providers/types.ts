import type { ProviderKind } from './names.ts';

/**
 * A provider instance's name (providers/names.ts): `simulator`, `twilio`, `smpp` (the built-in
 * ones) or a name of PROVIDERS. Routes, phone numbers, messages and receipts carry it.
 */
export type ProviderName = string;

/** A message handed to a provider for submission. */
export interface OutboundMessage {
  /** Our message id: submission is keyed by it (a retried submission of the same attempt is not sent twice). */
  id: string;
  accountId: string;
  attempt: number;
  from: string;
  to: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  media: { url: string }[];
  /**
   * Seconds left of the message's validity period (docs/encoding.md), absent without one: the
   * provider asks the carrier to give up after it (SMPP `validity_period`, Twilio `ValidityPeriod`).
   */
  validityPeriod?: number;
}

/** Error reported by a provider, mapped to our `{code, description}` shape. */
export interface ProviderError {
  code: string;
  description: string;
}

/** What a provider answered to a submission. */
export type SendResult =
  | { ok: true; providerMessageId: string; status: 'sent' }
  | {
      ok: false;
      status: 'failed';
      error: ProviderError;
      retryable: boolean;
      /**
       * Refused by this provider for a reason of its own, not of the message's (a Twilio account
       * that does not hold the sender): nothing was sent, and the next provider of the message's
       * route may take it at once. Not retried on this provider.
       */
      otherProvider?: boolean;
      /**
       * The provider may have taken it all the same (no answer in time, the connection lost after
       * the request left): its fate is unknown. The dispatcher asks the provider (lookup) before
       * it retries.
       */
      uncertain?: boolean;
    };

/** A submission the provider holds that matches a message whose submission's fate was unknown. */
export interface LookupMatch {
  providerMessageId: string;
  /** The provider's status, mapped: `failed` when it rejected the message after accepting the request. */
  status: 'sent' | 'failed';
  error?: ProviderError;
  /** When the provider took it, where it tells: of several candidates the closest to the attempt is preferred. */
  at?: Date;
}

/** A delivery receipt or status callback, already mapped to our statuses. */
export interface StatusUpdate {
  provider: ProviderName;
  providerMessageId: string;
  /** Our message, when the provider's receipt names it (the simulator's do): no lookup by carrier id. */
  message?: { accountId: string; id: string };
  status: 'sent' | 'delivered' | 'undelivered' | 'failed';
  error?: ProviderError;
  at: Date;
}

/** A message a provider received for one of our numbers. */
export interface InboundMessage {
  provider: ProviderName;
  providerMessageId: string;
  from: string;
  to: string;
  text: string;
  media: { url: string; type?: string }[];
  at: Date;
}

/**
 * Where a provider delivers what it receives asynchronously (receipts, inbound messages). A
 * failure is temporary (the provider asks its carrier to deliver again) unless it is an
 * InboundRefused.
 */
export interface ProviderSink {
  /** Receipts arrive in batches where the provider can batch them (the simulator, SMPP). */
  statuses(updates: StatusUpdate[]): Promise<void>;
  inbound(message: InboundMessage): Promise<void>;
}

/**
 * An inbound message that can never be taken, however often the carrier delivers it again: it is
 * to a number no account has on this provider (`destination`), or its sender is not a phone number
 * (`source`). The provider answers its carrier a permanent refusal.
 */
export class InboundRefused extends Error {
  constructor(
    readonly refused: 'destination' | 'source',
    message: string,
  ) {
    super(message);
    this.name = 'InboundRefused';
  }
}

/**
 * One interface for every carrier connection. Push-style providers (simulator receipts, SMPP
 * deliver_sm) call the sink; HTTP-callback providers (Twilio) are fed by the public listener.
 */
export interface Provider {
  /** The instance's name: what messages, receipts and routes record. */
  readonly name: ProviderName;
  /** The adapter it runs on (every adapter says; a stand-in without one is treated as any-sender, like SMPP). */
  readonly kind?: ProviderKind;
  /**
   * True when every receipt of this provider names our message (StatusUpdate.message): its
   * carrier ids then need no lookup row (provider_refs).
   */
  readonly receiptsNameMessage?: boolean;
  /**
   * Whether the provider's link is up (SMPP: bound). Absent where there is no standing link (HTTP
   * APIs). Routing passes over a provider whose link is down (docs/routing.md).
   */
  linkUp?(): boolean;
  /**
   * Submits one message. Throws only for unexpected faults (the dispatcher retries those). A
   * failure whose fate at the carrier is unknown (no answer, connection lost while out) uses a code
   * of UNCERTAIN_CODES (messaging/routing.ts): such a message is never moved to another provider.
   */
  send(message: OutboundMessage): Promise<SendResult>;
  /**
   * Submits many at once, answering in order, where the provider can do so without a round trip
   * per message (the in-process simulator): the dispatcher then makes one call per batch.
   */
  sendMany?(messages: OutboundMessage[]): SendResult[];
  /**
   * Asks the provider whether it holds this submission (made at or after `since`): answers the
   * matches, oldest first, or [] when it never received it. A match may be another message's with
   * the same text to the same person: the dispatcher gives each carrier id to one message only.
   * Throws when it cannot be asked now (the dispatcher asks again later, with backoff). Absent where
   * the provider cannot be asked (SMPP: query_sm needs the carrier's id, which an unacknowledged
   * submit_sm never gave us): DELIVERY_GUARANTEE decides.
   */
  lookup?(message: OutboundMessage, since: Date): Promise<LookupMatch[]>;
  /** Starts the connection, if any, and delivers receipts and inbound messages to the sink. */
  start(sink: ProviderSink): Promise<void>;
  close(): Promise<void>;
}

/** The providers this process has, by name. */
export interface ProviderRegistry {
  get(name: ProviderName): Provider | undefined;
  /** Starts every provider's connection and routes their receipts and inbound messages to the sink. */
  start(sink: ProviderSink): Promise<void>;
  close(): Promise<void>;
}
