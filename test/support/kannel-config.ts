/**
 * Kannel (Debian's kannel package: bearerbox + smsbox) as the tests and the peer benchmark run it:
 * where its binaries are, and the one kannel.conf both write: a bearerbox bound on loopback to one
 * SMPP SMSC (transceiver), an smsbox with a sendsms user, and optionally a catch-all sms-service.
 */
import { existsSync } from 'node:fs';

/** bearerbox and smsbox, where installed (undefined when not). */
export const BEARERBOX = ['/usr/sbin/bearerbox', '/usr/bin/bearerbox'].find((p) => existsSync(p));
export const SMSBOX = ['/usr/sbin/smsbox', '/usr/bin/smsbox'].find((p) => existsSync(p));

/** Why Kannel cannot run here, or false. */
export const KANNEL_MISSING =
  !BEARERBOX || !SMSBOX ? 'Kannel is not installed (apt-get install kannel)' : false;

/** What a kannel.conf names: its ports, its SMSC, its sendsms user and where MOs go. */
export interface KannelConfig {
  adminPort: number;
  smsboxPort: number;
  sendsmsPort: number;
  logLevel: number;
  /** Where bearerbox keeps queued messages across restarts (a file store); none without it. */
  storeLocation?: string;
  smsc: {
    id: string;
    port: number;
    username: string;
    password: string;
    /** Kannel's window of unacknowledged submit_sm (its default without it). */
    maxPendingSubmits?: number;
  };
  sendsmsUser: { username: string; password: string };
  /** A catch-all sms-service that GETs each MO to this URL (Kannel's %p/%P/%a escapes allowed). */
  moUrl?: string;
}

/** The kannel.conf text for `c`. */
export function kannelConfig(c: KannelConfig): string {
  const store = c.storeLocation ? `store-type = file\nstore-location = ${c.storeLocation}\n` : '';
  const window = c.smsc.maxPendingSubmits ? `max-pending-submits = ${c.smsc.maxPendingSubmits}\n` : '';
  const service = c.moUrl
    ? `
group = sms-service
keyword = default
get-url = "${c.moUrl}"
max-messages = 0
catch-all = true
`
    : '';
  return `group = core
admin-port = ${c.adminPort}
admin-password = adminpass
admin-interface = 127.0.0.1
smsbox-port = ${c.smsboxPort}
smsbox-interface = 127.0.0.1
box-allow-ip = 127.0.0.1
dlr-storage = internal
${store}log-level = ${c.logLevel}

group = smsc
smsc = smpp
smsc-id = ${c.smsc.id}
host = 127.0.0.1
port = ${c.smsc.port}
transceiver-mode = true
smsc-username = ${c.smsc.username}
smsc-password = ${c.smsc.password}
system-type = ""
${window}enquire-link-interval = 30
reconnect-delay = 1

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${c.smsboxPort}
sendsms-port = ${c.sendsmsPort}
sendsms-interface = 127.0.0.1
log-level = ${c.logLevel}

group = sendsms-user
username = ${c.sendsmsUser.username}
password = ${c.sendsmsUser.password}
concatenation = true
max-messages = 10
${service}`;
}
