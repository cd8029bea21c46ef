import type { Static } from '@sinclair/typebox';
import type { MemberRow } from '../../db/queries/users.ts';
import type { User as UserSchema } from '../../schemas/users.ts';
import { stamp } from '../actor.ts';

/** A console user as a member of an account, in the interface's User shape (unset fields omitted). */
export function presentUser(m: MemberRow): Static<typeof UserSchema> {
  return {
    id: m.id,
    email: m.email,
    firstName: m.first_name,
    lastName: m.last_name,
    role: m.role,
    ...(m.tac_accepted_at ? { tacAccepted: m.tac_accepted_at.toISOString() } : {}),
    active: m.password_hash !== null,
    created: stamp(m.joined_at, m.created_by),
    updated: stamp(m.member_updated_at, m.updated_by),
  };
}
