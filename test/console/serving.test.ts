import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { CONSOLE_ROOT, SHARED_MODULES } from '../../src/http/routes/console.ts';
import { body, call, startTestService, type TestService } from '../helpers.ts';

function consoleFiles(dir = CONSOLE_ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? consoleFiles(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

function assertSecurityHeaders(headers: Record<string, unknown>, what: string) {
  const csp = String(headers['content-security-policy'] ?? '');
  assert.match(csp, /default-src 'self'/, what);
  assert.match(csp, /script-src 'self'(;|$)/, `${what}: scripts from this origin only`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.equal(headers['x-content-type-options'], 'nosniff', what);
  assert.equal(headers['referrer-policy'], 'no-referrer', what);
  assert.equal(headers['x-frame-options'], 'DENY', what);
}

describe('GET /console/', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('serves the HTML shell with the security headers, loading only same-origin module scripts', async () => {
    const res = await call(svc.api, 'GET', '/console/');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assertSecurityHeaders(res.headers, 'shell');
    // One script: the bundle, named by its content's hash.
    assert.match(res.body, /<script type="module" src="\/console\/js\/app-[\w-]{16}\.js"><\/script>/);
    assert.equal(res.body.match(/<script/g)?.length, 1);
    // No inline script: every <script> has a src (the CSP would block an inline one anyway).
    for (const tag of res.body.match(/<script[^>]*>/g) ?? []) assert.match(tag, /src="\/console\//);
    assert.doesNotMatch(res.body, /style="/);
  });

  it('serves the console as one bundled script and a stylesheet, named by their hashes and cached for a year', async () => {
    const shell = (await call(svc.api, 'GET', '/console/')).body;
    const script = /src="(\/console\/js\/app-[\w-]{16}\.js)"/.exec(shell)?.[1];
    const style = /href="(\/console\/style-[\w-]{16}\.css)"/.exec(shell)?.[1];
    assert.ok(script && style, shell);
    const js = await call(svc.api, 'GET', script);
    assert.equal(js.statusCode, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assertSecurityHeaders(js.headers, 'bundle');
    // Every page and the server's rules are in it: it imports nothing, and nothing of the modules'
    // own import lines is left (a statement begins a line or follows `;` or `}`; words such as
    // "the import" in the pages' texts are not statements).
    assert.doesNotMatch(js.body, /(?:^|[;}])\s*import\s*[{*"']|\bimport\(\s*["'`]|from\s*"\.\.?\//m);
    for (const text of ['Messages per day', 'Drip campaigns', 'Sign in'])
      assert.ok(js.body.toLowerCase().includes(text.toLowerCase()), text);
    assert.match(js.body, /sourceMappingURL=app-[\w-]{16}\.js\.map\s*$/);
    // What the browser asks for: gzip, the same bytes once unpacked.
    const zipped = await svc.api.inject({
      method: 'GET',
      url: script,
      headers: { 'accept-encoding': 'gzip, br' },
    });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers.vary, 'accept-encoding');
    assert.equal(gunzipSync(zipped.rawPayload).toString('utf8'), js.body);
    assert.ok(zipped.rawPayload.length < js.rawPayload.length / 2);
    const refused = await svc.api.inject({
      method: 'GET',
      url: script,
      headers: { 'accept-encoding': 'gzip;q=0' },
    });
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.equal(refused.body, js.body);
    const again = await call(svc.api, 'GET', script, {
      headers: { 'if-none-match': String(js.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    const css = await call(svc.api, 'GET', style);
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(css.body, readFileSync(path.join(CONSOLE_ROOT, 'style.css'), 'utf8'));
    const map = await call(svc.api, 'GET', `${script}.map`);
    assert.equal(map.statusCode, 200);
    assert.ok(body(map).sources.some((s: string) => s.endsWith('pages/compose.js')));
    // A name of the bundle's shape with another hash is a 404, never a 500 or another file.
    for (const url of [
      '/console/js/app-AAAAAAAAAAAAAAAA.js',
      '/console/style-AAAAAAAAAAAAAAAA.css',
      '/console/js/app-AAAAAAAAAAAAAAAA.js.map',
      `${script}%00`,
      `${script}/..%2f..%2fpackage.json`,
      `${script}.map/..%2f..%2f..%2fpackage.json`,
    ]) {
      const res = await call(svc.api, 'GET', url);
      assert.ok([400, 404].includes(res.statusCode), `${url} answered ${res.statusCode}`);
      assertSecurityHeaders(res.headers, url);
    }
    // Outside the folder once normalised: not a console file at all.
    const outside = await call(svc.api, 'GET', script.replace('/js/', '/js/../../'));
    assert.equal(outside.statusCode, 404);
  });

  it('redirects /console to /console/', async () => {
    const res = await call(svc.api, 'GET', '/console');
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, '/console/');
  });

  it('serves scripts, styles and the icon with their content types and the security headers', async () => {
    const cases: [string, string][] = [
      ['/console/js/app.js', 'text/javascript; charset=utf-8'],
      ['/console/js/pages/compose.js', 'text/javascript; charset=utf-8'],
      ['/console/style.css', 'text/css; charset=utf-8'],
      ['/console/favicon.svg', 'image/svg+xml'],
      ['/console/index.html', 'text/html; charset=utf-8'],
    ];
    for (const [url, type] of cases) {
      const res = await call(svc.api, 'GET', url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], type, url);
      assertSecurityHeaders(res.headers, url);
      const file = path.join(CONSOLE_ROOT, url.slice('/console/'.length));
      // The shell is served pointing at the bundle (above); every other file as written.
      if (!url.endsWith('.html')) assert.equal(res.body, readFileSync(file, 'utf8'), url);
    }
  });

  it('serves the server’s rule modules, built from their TypeScript, with the security headers and an etag', async () => {
    const urls = Object.keys(SHARED_MODULES);
    assert.deepEqual(urls.sort(), ['js/rules/render.js', 'js/rules/segments.js']);
    for (const key of urls) {
      const url = `/console/${key}`;
      const res = await call(svc.api, 'GET', url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8', url);
      assertSecurityHeaders(res.headers, url);
      assert.ok(res.body.startsWith(`// Built from ${SHARED_MODULES[key]} for the console`), url);
      // Types are gone, exports are there: a browser module, not TypeScript.
      assert.doesNotMatch(res.body, /: string\b|\binterface\b|\bas const\b/, url);
      assert.match(res.body, /export \{/, url);
      const again = await call(svc.api, 'GET', url, {
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      assert.equal(again.statusCode, 304, url);
    }
  });

  it('answers a conditional GET with 304 when the file is unchanged', async () => {
    const first = await call(svc.api, 'GET', '/console/style.css');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    const again = await call(svc.api, 'GET', '/console/style.css', { headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('answers an unknown asset with 404 in the error envelope, with the security headers', async () => {
    const res = await call(svc.api, 'GET', '/console/js/nothing.js');
    assert.equal(res.statusCode, 404);
    assert.equal(body(res).error.code, 'HTTP-404');
    assertSecurityHeaders(res.headers, 'a 404');
  });

  it('never serves a file from outside the console folder, however the path is spelled', async () => {
    const packageJson = readFileSync(path.join(CONSOLE_ROOT, '..', 'package.json'), 'utf8');
    const attempts = [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/%2E%2E%2Fpackage.json',
      '/console/..%2fpackage.json',
      '/console/..%5cpackage.json',
      '/console/js/../../package.json',
      '/console/js/%2e%2e/%2e%2e/package.json',
      '/console/%252e%252e/package.json',
      '/console/....//package.json',
      '/console//etc/passwd',
      '/console/%2fetc%2fpasswd',
      '/console/..%c0%afpackage.json',
      '/console/.%2e/src/config.ts',
    ];
    for (const url of attempts) {
      const res = await call(svc.api, 'GET', url);
      assert.ok([400, 404].includes(res.statusCode), `${url} answered ${res.statusCode}`);
      assert.notEqual(res.body, packageJson, url);
      assert.doesNotMatch(res.body, /"dependencies"|root:x:0|loadConfig/, url);
    }
  });

  it('is left out of the OpenAPI document, but for its sign-in operations', async () => {
    const doc = body(await call(svc.api, 'GET', '/openapi.json'));
    const consolePaths = Object.keys(doc.paths).filter((p) => p.startsWith('/console'));
    assert.ok(Object.keys(doc.paths).length > 0);
    assert.ok(consolePaths.length > 0);
    assert.deepEqual(
      consolePaths.filter((p) => !p.startsWith('/console/api/')),
      [],
      'the static files are not operations',
    );
  });
});

describe('the console sources', () => {
  it('import the server’s rules only from the modules it serves (no copies of them)', () => {
    const scripts = consoleFiles().filter((f) => f.endsWith('.js'));
    const served = new Set(Object.keys(SHARED_MODULES).map((k) => path.join(CONSOLE_ROOT, k)));
    let imports = 0;
    for (const file of scripts) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/from '([^']*rules\/[^']+)'/g)) {
        imports++;
        assert.ok(
          served.has(path.resolve(path.dirname(file), spec)),
          `${file} imports ${spec}, which is not served`,
        );
      }
      // The rule tables and scanners live in src/messaging only.
      assert.doesNotMatch(text, /GSM7_BASIC\s*=|function nextField|'\{\{\{', from/, file);
    }
    assert.ok(imports >= 2);
    for (const f of served) assert.equal(existsSync(f), false, `${f} would shadow the served build`);
  });

  it('never hand data to the HTML parser (innerHTML and friends)', () => {
    const scripts = consoleFiles().filter((f) => f.endsWith('.js'));
    assert.ok(scripts.length > 5);
    for (const file of scripts) {
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(
        text,
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(|DOMParser/,
        file,
      );
    }
  });
});
