import { fail } from '../../errors.ts';
import { hashSecret, verifySecret } from '../auth/secrets.ts';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** Hashes a new password (scrypt, as client secrets) after checking its length (USER-008). */
export async function hashPassword(password: unknown): Promise<string> {
  if (typeof password !== 'string' || [...password].length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    fail('USER-008');
  return hashSecret(password);
}

// Checked when the e-mail is unknown, so an unknown user costs the same time as a wrong password.
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash, spends the same time and answers false. */
export async function checkPassword(password: string, stored: string | null): Promise<boolean> {
  if (password.length > PASSWORD_MAX) return false;
  if (!stored) {
    decoy ??= hashSecret('decoy password for unknown users');
    await verifySecret(password, await decoy);
    return false;
  }
  return verifySecret(password, stored);
}
