/**
 * For a service run in a child process (CLI tests, the memory test, benchmarks): free ports for its
 * listeners, its readiness, and a token request. No side effects on import.
 */
import { testPort } from './ports.ts';

/** Two free ports and the environment that puts the API and externals listeners on them (loopback). */
export async function listenerEnv(): Promise<{
  port: number;
  externalsPort: number;
  env: { PORT: string; EXTERNALS_PORT: string; HOST: string };
}> {
  const [port, externalsPort] = [await testPort(), await testPort()];
  return {
    port,
    externalsPort,
    env: { PORT: String(port), EXTERNALS_PORT: String(externalsPort), HOST: '127.0.0.1' },
  };
}

/** Whether the API listener on `port` answers /readyz with 200 (false while it cannot be reached). */
export async function ready(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
  return res?.status === 200;
}

/** POSTs a client-credentials token request (JSON) to the API listener on `port`. */
export function requestToken(port: number, clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
}
