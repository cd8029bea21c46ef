import { randomUUID } from 'node:crypto';
import {
  type CryptoKey,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { createSecretBox, type SecretBox } from '../../crypto/secret-box.ts';
import type { Db } from '../../db/client.ts';
import { revokedClientIds } from '../../db/queries/api-clients.ts';
import { activeSigningKeys, insertSigningKey, retireOldKeys } from '../../db/queries/signing-keys.ts';
import { findMember, type Role } from '../../db/queries/users.ts';
import { scopesFor } from '../users/roles.ts';

/** The stored form of a private JWK: the object itself, or a sealed string of its JSON. */
export function sealPrivateJwk(secrets: SecretBox, jwk: object): object | string {
  return secrets.enabled ? secrets.seal(JSON.stringify(jwk)) : jwk;
}

/** The private JWK of a stored value (sealed string or plain object). */
export function openPrivateJwk(secrets: SecretBox, stored: Record<string, unknown> | string): JWK {
  return typeof stored === 'string' ? (JSON.parse(secrets.open(stored)) as JWK) : (stored as JWK);
}

/** The one algorithm tokens are signed and verified with (RFC 8725: pinned, never from the token). */
export const TOKEN_ALG = 'EdDSA';
export const TOKEN_AUDIENCE = 'sparrow-api';

/** What a verified access token grants. */
export interface Grant {
  clientId: string;
  clientName: string;
  accounts: string[];
  scopes: Set<string>;
  exp: number;
  /** A console user's e-mail (tokens the console mints for a signed-in person). */
  email?: string;
  /** A console user's first and last names (OpenID's `given_name`, `family_name` claims), when they have them. */
  firstName?: string;
  lastName?: string;
}

interface LoadedKey {
  kid: string;
  priv: CryptoKey;
  pub: CryptoKey;
}

const REVOCATION_TTL_MS = 2000;
/** An unknown `kid` reloads the keys at most this often (it may be a key rotated in by another process). */
const UNKNOWN_KID_RELOAD_MS = 5000;
const VERIFIED_CACHE_MAX = 10_000;

/**
 * Issues and verifies access tokens. Keys live in the database (created on first use, rotatable);
 * verified tokens are cached by their text until they expire, so a hot token costs a map lookup.
 */
export class TokenService {
  private keys: LoadedKey[] = [];
  private keysLoadedAt = 0;
  private lastUnknownKidReload = 0;
  /** Key loads from the database so far (read by tests). */
  keyLoads = 0;
  private revoked = new Set<string>();
  private revokedLoadedAt = 0;
  private verified = new Map<string, Grant>();
  /** A console user's role in an account (`user:<id>|<account>`), or null once they are not a member, as read at `at`. */
  private roles = new Map<string, { role: Role | null; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
    /** Private keys are stored sealed by this box (plain text without SECRETS_KEY). */
    private readonly secrets: SecretBox = createSecretBox(),
  ) {}

  private async loadKeys(force = false): Promise<LoadedKey[]> {
    if (!force && this.keys.length && Date.now() - this.keysLoadedAt < 60_000) return this.keys;
    this.keyLoads++;
    let rows = await activeSigningKeys(this.db);
    if (!rows.length) {
      await this.rotate();
      rows = await activeSigningKeys(this.db);
    }
    this.keys = await Promise.all(
      rows.map(async (r) => ({
        kid: r.kid,
        priv: (await importJWK(openPrivateJwk(this.secrets, r.private_jwk), r.alg)) as CryptoKey,
        pub: (await importJWK(r.public_jwk, r.alg)) as CryptoKey,
      })),
    );
    this.keysLoadedAt = Date.now();
    return this.keys;
  }

  /** Creates a new signing key; tokens signed by the previous key keep verifying until it is retired. */
  async rotate(keep = 2): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
    const kid = randomUUID();
    await insertSigningKey(this.db, {
      kid,
      alg: TOKEN_ALG,
      privateJwk: sealPrivateJwk(this.secrets, await exportJWK(privateKey)),
      publicJwk: await exportJWK(publicKey),
    });
    await retireOldKeys(this.db, keep);
    this.keysLoadedAt = 0;
    this.verified.clear();
    return kid;
  }

  /**
   * Signs an access token for a client (or a console user: `user:<id>`, with `email`) of one
   * account; `ttlSeconds` shortens it below TOKEN_TTL_SECONDS.
   */
  async issue(
    client: {
      id: string;
      name: string;
      accountId: string;
      email?: string;
      firstName?: string | null;
      lastName?: string | null;
    },
    scopes: string[],
    ttlSeconds = this.ttlSeconds,
  ): Promise<string> {
    const [key] = await this.loadKeys();
    const claims = {
      accounts: [client.accountId],
      scope: scopes.join(' '),
      name: client.name,
      ...(client.email && { email: client.email }),
      ...(client.firstName && { given_name: client.firstName }),
      ...(client.lastName && { family_name: client.lastName }),
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: TOKEN_ALG, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(this.issuer)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(client.id)
      .setIssuedAt()
      .setExpirationTime(`${Math.min(ttlSeconds, this.ttlSeconds)}s`)
      .setJti(randomUUID())
      .sign(key.priv);
  }

  /** Verifies a token; answers its grant, or undefined when it is invalid, expired or revoked. */
  async verify(token: string): Promise<Grant | undefined> {
    const now = Math.floor(Date.now() / 1000);
    let grant = this.verified.get(token);
    if (grant && grant.exp <= now) {
      this.verified.delete(token);
      grant = undefined;
    }
    if (!grant) {
      grant = await this.verifySignature(token);
      if (!grant) return undefined;
      if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.clear();
      this.verified.set(token, grant);
    }
    if (await this.isRevoked(grant.clientId)) return undefined;
    if (grant.clientId.startsWith('user:')) return this.asMemberNow(grant);
    return grant;
  }

  /**
   * A console user's token is worth what their membership is worth now: nothing once they have left
   * the account, and no more than their current role's scopes once demoted (read at most every 2 s
   * per user and account, at once in this process after noteMembershipChanged).
   */
  private async asMemberNow(grant: Grant): Promise<Grant | undefined> {
    const userId = grant.clientId.slice('user:'.length);
    let scopes = grant.scopes;
    for (const accountId of grant.accounts) {
      const key = `${grant.clientId}|${accountId}`;
      let seen = this.roles.get(key);
      if (!seen || Date.now() - seen.at > REVOCATION_TTL_MS) {
        const member = await findMember(this.db, accountId, userId);
        seen = { role: member?.role ?? null, at: Date.now() };
        if (this.roles.size >= VERIFIED_CACHE_MAX) this.roles.clear();
        this.roles.set(key, seen);
      }
      if (!seen.role) return undefined;
      const allowed = new Set<string>(scopesFor(seen.role));
      if ([...scopes].some((s) => !allowed.has(s)))
        scopes = new Set([...scopes].filter((s) => allowed.has(s)));
    }
    return scopes === grant.scopes ? grant : { ...grant, scopes };
  }

  /** Forgets what this process knew of a person's membership of an account (removed, or role changed). */
  noteMembershipChanged(userId: string, accountId: string): void {
    this.roles.delete(`user:${userId}|${accountId}`);
  }

  private async verifySignature(token: string): Promise<Grant | undefined> {
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== TOKEN_ALG) return undefined;
      kid = header.kid;
    } catch {
      return undefined;
    }
    let key = (await this.loadKeys()).find((k) => k.kid === kid);
    if (!key && Date.now() - this.lastUnknownKidReload >= UNKNOWN_KID_RELOAD_MS) {
      // Anyone can send a made-up kid: reload at most once per interval, whatever the traffic.
      this.lastUnknownKidReload = Date.now();
      key = (await this.loadKeys(true)).find((k) => k.kid === kid);
    }
    if (!key) return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key.pub, {
        algorithms: [TOKEN_ALG],
        issuer: this.issuer,
        audience: TOKEN_AUDIENCE,
        clockTolerance: 30,
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      }));
    } catch {
      return undefined;
    }
    const accounts = payload.accounts;
    if (!Array.isArray(accounts) || typeof payload.scope !== 'string') return undefined;
    return {
      clientId: payload.sub as string,
      clientName: typeof payload.name === 'string' ? payload.name : '',
      accounts: accounts.map(String),
      scopes: new Set(payload.scope.split(' ').filter(Boolean)),
      exp: payload.exp as number,
      ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
      ...(typeof payload.given_name === 'string' ? { firstName: payload.given_name } : {}),
      ...(typeof payload.family_name === 'string' ? { lastName: payload.family_name } : {}),
    };
  }

  private async isRevoked(clientId: string): Promise<boolean> {
    if (Date.now() - this.revokedLoadedAt > REVOCATION_TTL_MS) {
      this.revoked = new Set(await revokedClientIds(this.db));
      this.revokedLoadedAt = Date.now();
    }
    return this.revoked.has(clientId);
  }

  /** Marks a client revoked in this process at once (other processes see it within 2 s). */
  noteRevoked(clientId: string): void {
    this.revoked.add(clientId);
  }
}
