import { Type } from '@sinclair/typebox';
import { AuditStamp } from './common.ts';

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.String(),
  status: Type.String({ description: '`trial`, `paid` or `suspended`.' }),
  trial: Type.Boolean(),
  timezone: Type.String(),
  currency: Type.String(),
  created: AuditStamp,
  updated: AuditStamp,
});

export const Balance = Type.Object({
  balance: Type.Number(),
  currency: Type.String(),
});
