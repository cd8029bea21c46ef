/** Every scope a token can carry: the one list (new clients get all of them). `messages:send` is the interface's declared scope. */
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

/** What each scope grants, in a few words: the README's scope table and the OpenAPI document show it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'account:read': 'the account, its balance, its auto top-up settings and billing transactions',
  'billing:write': 'checkout sessions and auto top-up (turning it on, changing or disabling it)',
  'contacts:read': 'contacts',
  'contacts:write': 'creating, changing and deleting contacts; CSV uploads',
  'lists:read': 'lists and their members',
  'lists:write': 'creating, changing and deleting lists; adding and removing members',
  'numbers:read': "available numbers, the account's phone numbers, phone-number groups",
  'numbers:write': 'taking, changing and releasing phone numbers; creating, changing and deleting groups',
  'messages:read': 'messages',
  'messages:send': "sending messages (the interface's declared scope)",
  'conversations:read': 'conversations',
  'conversations:write': 'closing conversations and marking them read',
  'webhooks:read': 'webhook subscriptions and their deliveries',
  'webhooks:write': 'subscribing, changing and removing webhooks; rotating secrets; replaying deliveries',
  'campaigns:read': 'campaigns, drip campaigns and drip executions',
  'campaigns:write':
    'creating, changing and deleting campaigns and drip campaigns; quick campaigns; deactivating drips',
  'templates:read': 'message templates',
  'templates:write': 'creating, changing and deleting message templates',
  'workflows:read': 'workflows, their node types and enrollments',
  'workflows:write':
    'creating, changing and deleting workflows; changing edges; enrolling contacts; turning a drip campaign into a workflow',
  'forms:read': 'lead forms, form templates, analytics and conversions',
  'forms:write': 'creating, changing, deleting, activating and deactivating lead forms',
  'calls:read': 'calls',
  'links:read': 'tracked links, their sources and daily stats',
  'links:write': 'creating and deleting tracked links',
  'meetings:read': 'meeting events and meetings',
  'meetings:write': 'creating, changing, duplicating and deleting meeting events; cancelling meetings',
};
