import { fail } from '../../errors.ts';
import { hashSecret, verifySecret } from '../auth/secrets.ts';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** Hashes a new password (scrypt at `cost`, as client secrets) after checking its length (USER-008). */
export async function hashPassword(password: unknown, cost?: number): Promise<string> {
  if (typeof password !== 'string' || [...password].length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    fail('USER-008');
  return hashSecret(password, cost);
}

/** scrypt verifications of console passwords run in this process so far (read by tests and bench:signin). */
export const passwordChecks = { scrypt: 0 };

/**
 * Whether `password` matches a user's stored hash (scrypt). Only ever called for a user who has a
 * password: an unknown e-mail pays no scrypt (SignInGuard answers it after a matching delay).
 */
export async function checkPassword(password: string, stored: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX) return false;
  passwordChecks.scrypt++;
  return verifySecret(password, stored);
}
