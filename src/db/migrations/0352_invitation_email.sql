-- Console invitations are e-mailed when SMTP_URL is configured: each records what became of its
-- e-mail (none: no SMTP, the link is only shown; sending: handed to the server, no answer yet — a
-- process that died meanwhile leaves it so; sent; failed, with the server's reason).
ALTER TABLE user_invitations
  ADD COLUMN email_status text NOT NULL DEFAULT 'none' CHECK (email_status IN ('none', 'sending', 'sent', 'failed')),
  ADD COLUMN email_error text,
  ADD COLUMN emailed_at timestamptz;
