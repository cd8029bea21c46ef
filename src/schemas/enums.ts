/** The enumerations the API publishes: one definition each, imported by schemas and domain alike. */

/** What a bulk contact operation does to each selected contact. */
export const CONTACT_ACTIONS = [
  'delete',
  'block',
  'unblock',
  'optOut',
  'optIn',
  'addToList',
  'removeFromList',
  'tag',
  'untag',
] as const;

/** One bulk contact action. */
export type ContactAction = (typeof CONTACT_ACTIONS)[number];

/**
 * The webhook `eventTypes` values: the interface's ten, and the published revision's list
 * membership events `list-opt-in` / `list-opt-out` (a contact's membership of one list opted in or out).
 */
export const EVENT_TYPES = [
  'message-received',
  'message-status',
  'message-sent',
  'conversation-started',
  'conversation-closed',
  'contact-created',
  'contact-updated',
  'contact-removed',
  'contact-opt-out',
  'contact-opt-in',
  'list-opt-in',
  'list-opt-out',
] as const;

/** One of the event types. */
export type EventType = (typeof EVENT_TYPES)[number];

/** The roles a console user can have in an account, most powerful first. */
export const ROLES = ['Administrator', 'Member', 'Viewer'] as const;

/** A console user's role in an account. */
export type Role = (typeof ROLES)[number];

/** The fields of an audit stamp's `by` (the interface's shape), each a string, empty where unknown. */
export const ACTOR_FIELDS = ['id', 'name', 'firstName', 'lastName', 'email', 'source', 'subSource'] as const;
