import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { buildConsoleBundle, bundledShell, type ConsoleBundle } from '../console-bundle.ts';
import { sendError } from '../plugins/errors.ts';

/** Where the console's static files live (served as written; no build step for them). */
export const CONSOLE_ROOT = `${path.join(PACKAGE_ROOT, 'console')}${path.sep}`;

/**
 * The server's rule modules the console imports, by their console path: one definition of each
 * rule, in TypeScript, served to the browser as an ES module built from that source (types
 * stripped, its own imports inlined). console/tsconfig.json maps js/rules/ onto src/messaging/
 * (rootDirs), so the console is type-checked against the same source.
 */
export const SHARED_MODULES: Readonly<Record<string, string>> = {
  'js/rules/segments.js': 'src/messaging/segments.ts',
  'js/rules/render.js': 'src/messaging/render.ts',
};

/**
 * Builds the shared modules for the browser with esbuild (a dependency already: bin/sparrow.js
 * bundles the server with it), all in one build, each bundled on its own: console path → code.
 * Done on the first request for one of them (about 0.3 s on a quiet machine, once per process), so
 * a start that serves no console pays nothing.
 */
export async function buildSharedModules(): Promise<Map<string, Buffer>> {
  const esbuild = await import('esbuild');
  const keys = Object.keys(SHARED_MODULES);
  const out = await esbuild.build({
    entryPoints: keys.map((key) => ({
      in: path.join(PACKAGE_ROOT, SHARED_MODULES[key]),
      out: key.slice(0, -3),
    })),
    outdir: path.join(PACKAGE_ROOT, 'console'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const built = new Map<string, Buffer>();
  for (const file of out.outputFiles) {
    const key = path.relative(path.join(PACKAGE_ROOT, 'console'), file.path).split(path.sep).join('/');
    const banner = `// Built from ${SHARED_MODULES[key]} for the console: edit that file, not this one.\n`;
    built.set(key, Buffer.from(banner + file.text));
  }
  return built;
}

/**
 * The console's Content-Security-Policy: only this origin's scripts, styles and API, no inline
 * script or style, and no framing (clickjacking).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * Reads every servable file under the root once, keyed by its relative URL path. Serving only
 * from this map means no request path ever reaches the file system, so `..` and its encodings
 * cannot escape the folder.
 */
function asset(body: Buffer, type: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, type, etag };
}

function loadAssets(root: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      const type = TYPES[path.extname(entry.name)];
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && type) {
        const key = path.relative(root, full).split(path.sep).join('/');
        assets.set(key, asset(readFileSync(full), type));
      }
    }
  };
  walk(root);
  return assets;
}

function securityHeaders(reply: FastifyReply) {
  reply.headers({
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  });
}

/** Served names of the bundle's files: `js/app-<hash>.js`, its `.map`, `style-<hash>.css`. */
const BUNDLED = /^(js\/app-[\w-]{16}\.js(\.map)?|style-[\w-]{16}\.css)$/;

/** A year: the bundle's files are named by their content, so a name never changes its bytes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

// One build per process (the console's sources are read once, as the assets are): every app of
// the process serves the same bundle. A failed build is tried again at the next request.
let bundling: Promise<ConsoleBundle> | undefined;
function consoleBundle(style: Buffer): Promise<ConsoleBundle> {
  if (!bundling) {
    bundling = buildConsoleBundle(CONSOLE_ROOT, SHARED_MODULES, style);
    bundling.catch(() => {
      bundling = undefined;
    });
  }
  return bundling;
}

/** Whether the client takes gzip (`Accept-Encoding`, not refused with q=0). */
function takesGzip(req: FastifyRequest): boolean {
  const header = String(req.headers['accept-encoding'] ?? '');
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/**
 * The web console at /console/: the HTML shell, the stylesheet and the ES modules that talk to the
 * public API. The shell loads them as one bundle (../console-bundle.ts) named by its hash and cached
 * for a year; the modules as written stay served too (the bundle's source map points at them).
 */
export async function consoleRoutes(app: FastifyInstance) {
  const assets = loadAssets(CONSOLE_ROOT);
  const html = assets.get('index.html');
  const style = assets.get('style.css');
  // The shell pointing at the bundle, made once the bundle is built; until then, or if it cannot be
  // built (logged), the shell as written (its module script loads the modules one by one).
  let shell: Asset | undefined;
  const bundled = async (req: FastifyRequest) => {
    if (!html || !style) return undefined;
    try {
      const bundle = await consoleBundle(style.body);
      shell ??= asset(Buffer.from(bundledShell(html.body.toString('utf8'), bundle)), html.type);
      return bundle;
    } catch (err) {
      req.log.error({ err }, 'console bundle: not built, serving the modules as written');
      return undefined;
    }
  };
  // Every console answer, an asset or an error, carries the security headers.
  app.addHook('onSend', async (_req, reply, payload) => {
    securityHeaders(reply);
    return payload;
  });

  // The shared modules are built once, on the first request for one; concurrent first requests
  // share the build, and a failed build is tried again on the next request.
  let build: Promise<Map<string, Asset>> | undefined;
  const shared = async (key: string) => {
    if (!build) {
      build = buildSharedModules().then(
        (built) => new Map([...built].map(([k, body]) => [k, asset(body, TYPES['.js'])])),
      );
      build.catch(() => {
        build = undefined;
      });
    }
    return (await build).get(key);
  };

  const serve = async (key: string, req: FastifyRequest, reply: FastifyReply) => {
    if (BUNDLED.test(key)) {
      const file = (await bundled(req))?.files.get(key);
      if (!file) return sendError(reply, 'HTTP-404', 'No such console file.');
      // The name is the content's hash: its ETag for a conditional GET.
      const etag = `"${key.replace(/^.*-([\w-]{16})\..*$/, '$1')}${key.endsWith('.map') ? '-map' : ''}"`;
      reply.header('etag', etag).header('cache-control', IMMUTABLE).header('vary', 'accept-encoding');
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      if (file.gzip && takesGzip(req)) reply.header('content-encoding', 'gzip');
      return reply.type(file.type).send(reply.getHeader('content-encoding') ? file.gzip : file.body);
    }
    if (key === 'index.html') await bundled(req);
    const found = Object.hasOwn(SHARED_MODULES, key)
      ? await shared(key)
      : key === 'index.html'
        ? (shell ?? assets.get(key))
        : assets.get(key);
    if (!found) return sendError(reply, 'HTTP-404', 'No such console file.');
    reply.header('etag', found.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === found.etag) return reply.code(304).send();
    return reply.type(found.type).send(found.body);
  };

  // With trailing slashes ignored this route answers both /console and /console/; the bare form
  // is redirected so that the address bar shows the console's folder.
  app.get('/console', { schema: { hide: true } }, async (req, reply) =>
    req.url.split('?')[0].endsWith('/') ? serve('index.html', req, reply) : reply.redirect('/console/', 301),
  );

  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (req, reply) =>
    serve(req.params['*'] === '' ? 'index.html' : req.params['*'], req, reply),
  );
}
