/**
 * The `data` of a message event as a webhook delivers it: the published event payload
 * (MessageEventPayload of the published description, OpenAPI 1.0.1: `contact`, `message` the message
 * text, `status`, `error` a string), with Sparrow's whole records kept beside it under names of
 * their own: `messageObject` (the Message as Sparrow stores it in the event) and `errorObject`
 * (`{code, description}`). The interface leaves the payload unstated, so the published one is the
 * contract (docs/interface.md, "Events and webhooks"). Other event types are delivered as stored.
 */
const MESSAGE_EVENTS = new Set(['message-sent', 'message-status', 'message-received']);

type Data = Record<string, unknown>;

const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `text`: the message's text when the stored event does not carry it (message-sent and
 * message-status carry the message without its body; the delivery reads it with the event).
 */
export function publishedEventData(type: string, data: unknown, text?: string | null): unknown {
  if (!MESSAGE_EVENTS.has(type) || !isObject(data) || !isObject(data.message)) return data;
  const { message, error, ...rest } = data;
  const messageText = typeof message.message === 'string' ? message.message : (text ?? '');
  const err = isObject(error) ? error : isObject(message.error) ? message.error : undefined;
  const out: Data = { ...rest, message: messageText, messageObject: message };
  if (err) {
    out.error = typeof err.description === 'string' ? err.description : String(err.code ?? '');
    out.errorObject = err;
  }
  return out;
}
