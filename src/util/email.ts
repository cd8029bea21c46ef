/**
 * One plain mailbox (`local@domain`): no spaces, quotes, brackets, commas, semicolons or colons,
 * which an address parser could read as a display name, a group or several recipients.
 */
export const PLAIN_EMAIL = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+$/;

/** Whether `address` is one plain mailbox (PLAIN_EMAIL) of at most 320 characters. */
export function isPlainEmail(address: string): boolean {
  return address.length <= 320 && PLAIN_EMAIL.test(address);
}
