-- Inbound messages and conversations.

-- A carrier that retries an inbound delivery resends the same provider message id: the second
-- copy must not be stored again. Scoped by account (the number routes a message to one account)
-- so the index stays valid when account_id becomes the distribution column.
CREATE UNIQUE INDEX messages_inbound_provider_id ON messages (account_id, provider, provider_message_id)
  WHERE NOT outgoing AND provider_message_id IS NOT NULL;

-- Unread tracking: a conversation's unread inbound messages, found without scanning its history.
CREATE INDEX messages_unread ON messages (account_id, conversation_id, created_at)
  WHERE NOT outgoing AND NOT read;

-- Conversation lists: most recent activity first, per account.
CREATE INDEX conversations_updated ON conversations (account_id, updated_at DESC, id DESC);
