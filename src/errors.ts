/**
 * The one registry of error codes: every expected failure the service reports has a code here,
 * with its HTTP status and a default text. Codes follow AREA-NNN, except the OAuth token
 * endpoint's, which are the RFC 6749 error names.
 */
export const ERRORS = {
  // OAuth 2.0 token endpoint (RFC 6749 §5.2)
  invalid_request: { status: 400, message: 'The request is missing a parameter or is malformed.' },
  invalid_client: { status: 401, message: 'Client authentication failed.' },
  invalid_grant: { status: 400, message: 'The grant is invalid.' },
  unauthorized_client: { status: 400, message: 'The client may not use this grant type.' },
  unsupported_grant_type: { status: 400, message: 'The grant type is not supported.' },
  invalid_scope: {
    status: 400,
    message: 'The requested scope is invalid or exceeds what the client may have.',
  },

  // Authentication and authorisation of API calls (RFC 6750)
  'AUTH-001': { status: 401, message: 'A bearer token is required.' },
  'AUTH-002': { status: 401, message: 'The access token is invalid or expired.' },
  'AUTH-003': { status: 403, message: 'The token does not grant access to this account.' },
  'AUTH-004': { status: 403, message: 'The token lacks the scope this operation needs.' },

  // Request shape
  'VAL-001': { status: 400, message: 'The request is invalid.' },
  'VAL-002': { status: 400, message: 'The request body is not valid JSON.' },
  'VAL-003': { status: 413, message: 'The request body is too large.' },
  'VAL-004': { status: 415, message: 'The content type is not supported.' },
  'HTTP-404': { status: 404, message: 'No such route.' },
  'SYS-500': { status: 500, message: 'An unexpected error occurred.' },
  'SYS-503': { status: 503, message: 'Database unreachable.' },
  'HTTP-405': { status: 405, message: 'Method not allowed.' },
  'RATE-001': { status: 429, message: 'Too many requests: the call frequency limit is exceeded.' },

  // Idempotency-Key (draft-ietf-httpapi-idempotency-key-header)
  'IDEM-001': { status: 400, message: 'The Idempotency-Key header is invalid.' },
  'IDEM-002': { status: 422, message: 'This Idempotency-Key was used with a different request.' },
  'IDEM-003': { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },

  // Accounts and billing
  'ACCT-001': { status: 404, message: 'Account not found.' },
  'ACCT-002': { status: 402, message: 'The account balance cannot cover this send.' },

  // Contacts
  'CONT-001': { status: 400, message: 'Invalid mobile number.' },
  'CONT-002': { status: 404, message: 'Contact not found.' },
  'CONT-003': { status: 409, message: 'A contact with this mobile number already exists.' },
  'CONT-004': { status: 400, message: 'The CSV upload is invalid.' },
  'CONT-010': { status: 400, message: 'Contact has requested no further communication.' },
  'CONT-011': { status: 400, message: 'Contact is blocked.' },

  // Lists
  'LIST-001': { status: 404, message: 'List not found.' },
  'LIST-002': { status: 409, message: "A smart list's members come from its filter, not from additions." },
  'LIST-003': { status: 400, message: 'The list filter names a list that does not exist.' },

  // Phone numbers and groups
  'NUM-001': { status: 404, message: 'Phone number not found.' },
  'NUM-002': { status: 409, message: 'This phone number is not available.' },
  'NUM-003': { status: 409, message: 'The phone number is still in use.' },
  'GRP-001': { status: 404, message: 'Group not found.' },
  'GRP-002': { status: 409, message: 'The default group cannot be deleted.' },
  'GRP-003': { status: 400, message: 'The group has no phone number to send from.' },
  'NUM-004': { status: 400, message: 'Invalid phone number: give a valid E.164 number.' },
  'NUM-005': { status: 400, message: 'Only simulator inventory numbers can use the simulator.' },
  'GRP-004': { status: 400, message: 'The office hours are invalid.' },
  'GRP-005': { status: 409, message: 'Make another group the default instead: one must stay.' },

  // Messages and conversations
  'MSG-001': { status: 404, message: 'Message not found.' },
  'MSG-002': { status: 400, message: 'No recipients: name contacts, conversations or filters.' },
  'MSG-003': { status: 400, message: 'The message text is empty.' },
  // Recorded on messages by the dispatcher (a message's `error`), not answered by the API.
  'MSG-010': { status: 502, message: 'The provider failed to accept the message.' },
  'MSG-011': { status: 503, message: 'The provider of the sending number is not configured.' },
  'CONV-001': { status: 400, message: 'Invalid conversation id.' },
  'CONV-002': { status: 404, message: 'Conversation not found.' },

  // Webhooks
  'HOOK-001': { status: 404, message: 'Webhook not found.' },
  'HOOK-002': { status: 400, message: 'The webhook destination is not allowed.' },
  'HOOK-003': { status: 404, message: 'Webhook delivery not found.' },
  'HOOK-004': { status: 409, message: 'A webhook for this destination already exists.' },

  // Templates
  'TMPL-001': { status: 404, message: 'Template not found.' },

  // Provider callbacks
  'PROV-001': { status: 403, message: 'The provider signature is invalid.' },
  'PROV-002': { status: 404, message: 'No phone number matches this message.' },

  // Campaigns
  'CAMP-001': { status: 404, message: 'Campaign not found.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A registered error code. */
export type ErrorCode = keyof typeof ERRORS;

/** An expected failure: a registered code, its HTTP status and a human-readable text. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

/** Shorthand for throwing an expected failure. */
export function fail(
  code: ErrorCode,
  message?: string,
  opts?: { details?: unknown; headers?: Record<string, string> },
): never {
  throw new AppError(code, message, opts);
}
