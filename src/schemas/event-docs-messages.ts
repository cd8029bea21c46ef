/**
 * Payloads (`data`) of the events the outbound send path emits, for the webhook documentation.
 * Every one is written in the transaction of the change it announces.
 */
export const MESSAGE_EVENT_DOCS = {
  'message-sent': {
    summary: 'A provider accepted an outgoing message (status `sent`).',
    data:
      'The published payload: `{message: "<the text>", status: "sent", contact: {id, mobile}, error: "<description>", ' +
      'messageObject: {id, jobId, campaignId, conversation: {id}, phoneNumber, to, outgoing, system, encoding, segments, ' +
      'price, status, error, providerMessageId, provider}, errorObject: {code, description}}` (unset fields, e.g. `error`, left out; `contact.mobile`: ' +
      'the Contact’s mobile object `{number, country, …}`; `messageObject.phoneNumber`: the sender, E.164; `messageObject.provider`: the ' +
      'provider that took it, as the Message shows it, present once a carrier accepted it). Emitted once ' +
      'per message: by the dispatcher when it records the provider’s acceptance. Queuing a message emits nothing.',
  },
  'message-status': {
    summary: 'An outgoing message changed status after it was queued: delivered, undelivered or failed.',
    data:
      'Same shape as `message-sent`, with the new `status` and its `error` (the description; `errorObject` {code, description}: a carrier code such ' +
      'as 21211, or CONT-001 invalid number, CONT-010 opted out or blocked, NUM-001 sending number gone, MSG-010 ' +
      'provider fault after the last attempt, MSG-020 fate at the provider unknown after a worker died or its lookups kept failing, under ' +
      'DELIVERY_GUARANTEE=at-most-once). Emitted for messages failed at send time (not charged), for ' +
      'dispatch failures (refunded), and for each delivery receipt that moves the status forward; late, repeated ' +
      'or out-of-order receipts emit nothing.',
  },
  'conversation-started': {
    summary: 'A bulk send opened a conversation between a contact and one of the group’s numbers.',
    data:
      '`{conversation: {id, contact: {id}, phoneNumber, closed: false}, reopened: false}`, `phoneNumber` the ' +
      'phone-number object `{id, number, country, …, active}` (the bulk path writes ' +
      'these set-based; a closed conversation is threaded into, not reopened, by a bulk send).',
  },
} as const;
