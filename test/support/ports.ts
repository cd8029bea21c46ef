/**
 * Ports for the listeners a test starts in another process (`sparrow start`, Kannel, PgBouncer…).
 *
 * A port the kernel picks for `listen(0)` comes from the ephemeral range, which outgoing
 * connections use too: between a test picking it and the child binding it (seconds, while an
 * embedded PostgreSQL starts), a connection of any process on the machine could take it as its
 * local port, and the child failed with "already in use" (once in CI, the SMPP server's port). So
 * these come from below that range (which no outgoing connection uses), at random, each checked free
 * by binding it, never the same one twice in this process.
 */
import fs from 'node:fs';
import net from 'node:net';

const FLOOR = 20_000;
const given = new Set<number>();

/** The lowest port of the ephemeral range (Linux's setting; 32768 where it cannot be read). */
function ephemeralFloor(): number {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const n = Number(low);
    return Number.isInteger(n) && n > FLOOR + 1_000 ? n : 32_768;
  } catch {
    return 32_768;
  }
}

const CEILING = ephemeralFloor();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free loopback port outside the ephemeral range, not given before in this process. */
export async function testPort(): Promise<number> {
  for (let tries = 0; tries < 1_000; tries++) {
    const port = FLOOR + Math.floor(Math.random() * (CEILING - FLOOR));
    if (given.has(port) || !(await bindable(port))) continue;
    given.add(port);
    return port;
  }
  throw new Error(`no free port between ${FLOOR} and ${CEILING}`);
}
