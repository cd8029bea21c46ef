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

  // Console users and their sessions
  'USER-001': { status: 401, message: 'The e-mail or password is wrong.' },
  'USER-002': {
    status: 429,
    message:
      'Too many failed sign-ins: this user is locked for a while. Try again later or reset the password.',
  },
  'USER-003': { status: 401, message: 'Not signed in to the console (no session, or it ended).' },
  'USER-004': { status: 403, message: 'The X-CSRF-Token header is missing or does not match the session.' },
  'USER-005': { status: 404, message: 'No such user in this account.' },
  'USER-006': { status: 404, message: 'The invitation link is unknown, used or expired.' },
  'USER-007': { status: 409, message: 'The last administrator of an account cannot be removed or demoted.' },
  'USER-008': { status: 400, message: 'The password must be 12 to 128 characters.' },
  'USER-009': { status: 403, message: 'This user is not a member of that account.' },
  'USER-010': { status: 403, message: 'The request came from another site.' },
  'USER-011': { status: 404, message: 'No open invitation with this id in this account.' },
  'CLIENT-001': { status: 404, message: 'No such API client in this account.' },

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
  'CONT-005': { status: 400, message: "The contact's attributes are over a limit." },
  'CONT-006': { status: 404, message: 'Contact import not found.' },
  'CONT-007': {
    status: 409,
    message: 'The contact import stopped: its remaining rows could not be written.',
  },
  'CONT-010': { status: 400, message: 'Contact has requested no further communication.' },
  'CONT-011': { status: 400, message: 'Contact is blocked.' },

  // Lists
  'LIST-001': { status: 404, message: 'List not found.' },
  'LIST-002': { status: 409, message: "A smart list's members come from its filter, not from additions." },
  'LIST-003': { status: 400, message: 'The list filter names a list that does not exist.' },
  'LIST-004': { status: 400, message: "The smart list's filter names no condition." },

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
  'MSG-004': { status: 400, message: 'The message renders empty and has no media: not sent.' },
  'MSG-005': { status: 400, message: 'The message text is longer than 1,600 characters.' },
  'MSG-006': {
    status: 400,
    message: 'The filters name no condition: send `"filters": {"all": true}` to reach every contact.',
  },
  'MSG-007': { status: 404, message: 'Send job not found.' },
  'MSG-008': { status: 409, message: 'The send job is no longer scheduled.' },
  'MSG-009': { status: 400, message: 'The media URL must be an absolute http(s) URL on a public address.' },
  // Recorded on messages by the dispatcher (a message's `error`), not answered by the API.
  'MSG-010': { status: 502, message: 'The provider failed to accept the message.' },
  'MSG-011': { status: 503, message: 'The provider of the sending number is not configured.' },
  'MSG-012': { status: 410, message: 'The validity period ended before the message could be sent.' },
  'MSG-020': {
    status: 502,
    message:
      'Unknown whether the provider accepted the message (its worker stopped while it was in flight, or the provider could not be asked); not resent under DELIVERY_GUARANTEE=at-most-once.',
  },
  'CONV-001': { status: 400, message: 'Invalid conversation id.' },
  'CONV-002': { status: 404, message: 'Conversation not found.' },
  'CONV-003': { status: 409, message: 'The conversation has no text from the contact to mark unread.' },
  'CONV-004': {
    status: 400,
    message: 'No such person in this account: assign the conversation to one of its users (…/users).',
  },
  'CONV-005': { status: 404, message: 'Saved reply not found.' },
  'CONV-006': {
    status: 409,
    message: 'The account has as many saved replies as it may keep (200): delete one first.',
  },

  // Webhooks
  'HOOK-001': { status: 404, message: 'Webhook not found.' },
  'HOOK-002': { status: 400, message: 'The webhook destination is not allowed.' },
  'HOOK-003': { status: 404, message: 'Webhook delivery not found.' },
  'HOOK-004': { status: 409, message: 'A webhook for this destination already exists.' },
  'HOOK-005': {
    status: 400,
    message: 'Give the destination as `url` or `destination` (both only if they are the same).',
  },
  'HOOK-006': {
    status: 409,
    message: 'The webhook is not paused: there is nothing to confirm.',
  },
  'HOOK-007': {
    status: 403,
    message:
      'Only an administrator can resume a webhook paused because a person who held it left the account (the token needs users:write).',
  },

  // Templates
  'TMPL-001': { status: 404, message: 'Template not found.' },

  // Provider callbacks
  'PROV-001': { status: 403, message: 'The provider signature is invalid.' },
  'PROV-002': { status: 404, message: 'No phone number matches this message.' },

  // The simulator's public endpoints (SIMULATOR_ENDPOINTS, SIMULATOR_SECRET)
  'SIM-001': { status: 401, message: 'The simulator endpoints need the X-Simulator-Secret header.' },

  // Campaigns
  'CAMP-001': { status: 404, message: 'Campaign not found.' },

  // Calls (docs/calls.md)
  'CALL-001': { status: 404, message: 'Call not found.' },

  // Meetings and meeting booking (docs/meetings.md)
  'MEET-001': { status: 404, message: 'Meeting event not found.' },
  'MEET-002': { status: 404, message: 'Meeting not found.' },
  'MEET-003': { status: 409, message: 'This booking slug is taken.' },
  'MEET-004': { status: 400, message: 'The meeting event settings are invalid.' },
  'MEET-010': { status: 400, message: 'This meeting duration is not offered.' },
  'MEET-011': { status: 400, message: 'A booking needs at least one attendee with an email or a mobile.' },
  'MEET-012': { status: 400, message: 'The start time is in the past.' },
  'MEET-013': { status: 400, message: 'The start time is beyond the booking horizon.' },
  'MEET-014': { status: 400, message: 'The start time is too soon: the minimum notice is not met.' },
  'MEET-015': { status: 400, message: 'The start time is not one the availability offers.' },
  'MEET-016': { status: 409, message: 'This time slot is no longer free.' },
  'MEET-017': { status: 400, message: 'The slot range must be non-empty and at most 31 days long.' },
  'MEET-018': { status: 409, message: 'The meeting has ended and can no longer be cancelled.' },

  // Billing: checkout and auto top-up (docs/billing.md)
  'BILL-001': { status: 400, message: 'The commitment is below the minimum of the plan.' },
  'BILL-002': { status: 409, message: 'No saved payment method: complete a checkout first.' },
  'BILL-003': { status: 404, message: 'Checkout session not found.' },
  'BILL-004': { status: 409, message: 'The checkout session is no longer open.' },
  'BILL-005': { status: 502, message: 'The payment provider failed to answer.' },
  'BILL-006': {
    status: 409,
    message:
      'Payments are not enabled on this server (PAYMENTS_PROVIDER=none): an operator credits accounts with `sparrow accounts credit`.',
  },

  // Lead forms (docs/forms.md)
  'FORM-001': { status: 404, message: 'Form not found.' },
  'FORM-002': { status: 404, message: 'Form template not found.' },
  'FORM-003': { status: 400, message: 'The form fields are invalid.' },
  'FORM-004': { status: 400, message: 'The submission is invalid.' },
  // Recorded on a conversion (its confirmation error), not answered: the lead is stored, no text sent.
  'FORM-005': { status: 429, message: 'The hourly cap of confirmation texts for this form is reached.' },

  // Tracked links (docs/links.md)
  'LINK-001': { status: 404, message: 'Link not found.' },
  'LINK-002': { status: 404, message: 'Link source not found.' },
  'LINK-003': { status: 400, message: 'The URL must be an absolute http or https URL.' },

  // Drip campaigns (docs/drips.md)
  'DRIP-001': { status: 404, message: 'Drip campaign not found.' },
  'DRIP-002': { status: 404, message: 'No drip execution matches.' },
  'DRIP-003': { status: 409, message: 'The drip campaign was already migrated to a workflow.' },
  'DRIP-004': { status: 400, message: 'The drip campaign trigger is invalid.' },

  // Workflows (docs/workflows.md)
  'WF-001': { status: 404, message: 'Workflow not found.' },
  'WF-002': { status: 404, message: 'Edge not found.' },
  'WF-003': { status: 404, message: 'Workflow version not found.' },
  'WF-004': { status: 409, message: 'This version has run and is read-only: add a new version instead.' },
  'WF-005': { status: 409, message: 'The workflow has no editable (non-read-only) version.' },
  'WF-006': { status: 409, message: 'The workflow has no active version.' },
  'WF-007': { status: 409, message: 'The contact is enrolled already or cannot enter this workflow again.' },
  'WF-008': { status: 400, message: 'At most one version can be active.' },
  'WF-010': { status: 400, message: 'A node id is used twice.' },
  'WF-011': { status: 400, message: 'Unknown node type.' },
  'WF-012': { status: 400, message: 'An edge is invalid: missing node or duplicate id.' },
  'WF-013': { status: 400, message: 'A definition needs exactly one trigger node.' },
  'WF-014': { status: 400, message: 'A node config is invalid.' },
  'WF-015': { status: 400, message: "A node's edges break its type's rules." },
  'WF-016': { status: 400, message: 'The definition has a cycle without a wait.' },
  'WF-017': { status: 400, message: 'A node refers to a list or group that does not exist.' },
  'WF-018': { status: 404, message: 'Workflow template not found.' },
  'WF-019': { status: 400, message: 'Give either a templateId or versions, not both.' },
  'WF-020': { status: 400, message: 'Workflows would start each other in a loop without a wait.' },
  'WF-021': { status: 429, message: 'The contact entered workflows too often: this entry was stopped.' },

  // Hosted files: POST /v1/tools/sharefile (docs/files.md)
  'FILE-001': {
    status: 415,
    message:
      'This file type is not accepted: send an image (JPEG, PNG, GIF, WebP), audio (MP3, AAC/M4A, AMR, Ogg, WAV), video (MP4, 3GP, QuickTime), a PDF or a vCard.',
  },
  'FILE-002': { status: 415, message: 'The contents of the file do not match its content type.' },
  'FILE-003': { status: 413, message: 'The file is larger than the limit (SHAREFILE_MAX_BYTES).' },
  'FILE-004': { status: 400, message: 'The file is empty.' },
  'FILE-005': {
    status: 400,
    message: 'The upload is malformed: send one file, as the multipart field `media` or as the raw body.',
  },
  'FILE-006': {
    status: 413,
    message:
      "The account's storage for hosted files is full (SHAREFILE_QUOTA_BYTES): wait for files to expire.",
  },

  // Carrier numbers verified with their provider (issue 9)
  'NUM-010': {
    status: 400,
    message: 'The sending phone number is not verified with its provider: it cannot send.',
  },
  'NUM-011': {
    status: 403,
    message:
      'This number is not assigned to this account on that provider: numbers on an SMPP carrier are assigned by the operator.',
  },
  // Compliance records: 10DLC brands and campaigns, toll-free verifications (issue 27)
  'NUM-012': { status: 404, message: 'Compliance registration not found.' },

  // Autoresponders (docs/autoresponders.md)
  'AUTO-001': { status: 404, message: 'Autoresponder not found.' },
  'AUTO-002': { status: 400, message: 'The autoresponder trigger is invalid.' },
  'AUTO-003': { status: 400, message: 'An autoresponder keyword is invalid.' },
  'AUTO-004': { status: 409, message: 'The account has as many autoresponders as it may have.' },
  // Jobs (sends and bulk contact operations: GET/PUT …/jobs, POST …/bulk/contacts)
  // Recorded on messages (a message's `error`) by a cancel, not answered by the API.
  'JOB-001': {
    status: 409,
    message: 'Cancelled: the job was cancelled before this message was handed to a dispatcher.',
  },
  'JOB-002': {
    status: 400,
    message: 'The bulk operation is missing what its action needs (tags or listId).',
  },
  // SMPP server (issue 15)
  'SMPP-001': { status: 404, message: 'SMPP credential not found.' },
  // Routing and failover (issue 15, docs/routing.md)
  'ROUTE-001': { status: 404, message: 'Route not found.' },
  'ROUTE-002': { status: 409, message: 'A route for this destination already exists.' },
  'ROUTE-003': { status: 400, message: 'The route is invalid.' },
  // CRM integrations (issue 29, docs/integrations.md)
  'INT-001': { status: 404, message: 'Integration not found.' },
  'INT-002': { status: 422, message: 'The CRM refused the credentials.' },
  'INT-003': { status: 424, message: 'The CRM could not be reached or answered unexpectedly.' },
  'INT-004': { status: 409, message: 'An integration with this CRM already exists for the account.' },
  'INT-005': { status: 400, message: 'The CRM address is not allowed.' },
  'INT-006': { status: 401, message: 'The CRM webhook signature does not verify.' },
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

/** An expected failure as a record (on a message, a run, an upload row): its code and text. */
export interface RecordedError {
  code: ErrorCode;
  description: string;
}

/** The record of an expected failure: the code with its registered text unless another is given. */
export function recordedError(code: ErrorCode, description: string = ERRORS[code].message): RecordedError {
  return { code, description };
}
