/**
 * The service's e-mail (console invitations) through one SMTP server (SMTP_URL, SMTP_FROM), with
 * nodemailer. Each message names its one recipient in the envelope as well as in `To`, so nothing
 * an address parser makes of a header can add a recipient.
 */
import type { Transporter } from 'nodemailer';
import type { SmtpConfig } from '../../config.ts';
import { isPlainEmail } from '../../util/email.ts';

/** One plain-text e-mail to one person. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends the service's e-mail; `send` rejects with a short reason when the server does not take it. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * How long one send may wait on the server, per phase (connect, greeting, any reply): an invitation
 * is e-mailed while its request waits, so a server that stalls must not hold it for minutes.
 */
const TIMEOUT_MS = 10_000;

/** Characters a header of ours must not carry (line breaks would start another header). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/** A mailer for `smtp`: one connection per message (invitations are few), STARTTLS when offered. */
export function createSmtpMailer(smtp: SmtpConfig): Mailer {
  // nodemailer is loaded with the first message (~65 ms of CPU that most processes never need).
  let transport: Promise<Transporter> | undefined;
  let closed = false;
  const open = () =>
    (transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
        dnsTimeout: TIMEOUT_MS,
      }),
    ));
  return {
    async send(message) {
      const to = message.to.trim();
      if (!isPlainEmail(to)) throw new Error('the address is not a single plain e-mail address');
      if (closed) throw new Error('the mailer is closed');
      await (await open()).sendMail({
        from: smtp.from,
        to: { name: '', address: to },
        envelope: { from: smtp.fromAddress, to: [to] },
        subject: message.subject.replace(CONTROL, ' '),
        text: message.text,
      });
    },
    close() {
      closed = true;
      void transport?.then((t) => t.close());
    },
  };
}
