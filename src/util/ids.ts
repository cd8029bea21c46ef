import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';

/** A new record id: UUIDv7, sortable by creation and unguessable (74 random bits). */
export function newId(): string {
  return uuidv7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can name a record at all (anything else is a 404 without a query). */
export function isId(value: string): boolean {
  return UUID.test(value);
}

/** A random token for secrets and client ids, base64url. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
