/** Every scope a token can carry. `messages:send` is the interface's declared scope. */
export const SCOPES = [
  'account:read',
  'billing:write',
  'contacts:read',
  'contacts:write',
  'lists:read',
  'lists:write',
  'numbers:read',
  'numbers:write',
  'messages:read',
  'messages:send',
  'conversations:read',
  'conversations:write',
  'webhooks:read',
  'webhooks:write',
  'campaigns:read',
  'campaigns:write',
  'templates:read',
  'templates:write',
  'workflows:read',
  'workflows:write',
  'forms:read',
  'forms:write',
  'calls:read',
  'links:read',
  'links:write',
  'meetings:read',
  'meetings:write',
] as const;

/** A scope a route can require. */
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
