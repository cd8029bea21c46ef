/** Pieces shared by the local servers that stand in for Twilio's REST API in tests. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Authorization header Twilio expects: Basic with the account SID and an auth token. */
export const twilioBasic = (sid: string, token: string) =>
  `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;

/** Reads a request's body as UTF-8 text, then calls `done` with it. */
export function readBody(req: http.IncomingMessage, done: (raw: string) => void): void {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => {
    raw += c;
  });
  req.on('end', () => done(raw));
}

/** Answers `json` with `status`. */
export function replyJson(res: http.ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(json));
}

/** Listens on a free loopback port; answers the server's base URL. */
export async function listenLoopback(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Drops every connection (hanging ones included) and closes the server. */
export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}
