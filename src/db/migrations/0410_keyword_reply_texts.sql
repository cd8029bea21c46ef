-- The account's compliance keyword replies become settings (issue 27): the STOP confirmation
-- (opt_out_text) and the START confirmation (opt_in_text) beside the HELP reply (help_text, since
-- 0001). NULL is the default wording, branded with the account's name at the time of the reply
-- (src/domain/accounts/keyword-replies.ts); a text is the account's own, checked there (not empty,
-- at most one message's 1,600 characters, the carriers' required words, only fillable merge fields).
ALTER TABLE accounts
  ADD COLUMN opt_out_text text CHECK (char_length(opt_out_text) BETWEEN 1 AND 1600),
  ADD COLUMN opt_in_text text CHECK (char_length(opt_in_text) BETWEEN 1 AND 1600);
