import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
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
    assertSecurityHeaders(res.headers, 'shell');
    assert.match(res.body, /<script type="module" src="\/console\/js\/app\.js"><\/script>/);
    // No inline script: every <script> has a src (the CSP would block an inline one anyway).
    for (const tag of res.body.match(/<script[^>]*>/g) ?? []) assert.match(tag, /src="\/console\//);
    assert.doesNotMatch(res.body, /style="/);
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
      assert.equal(res.body, readFileSync(file, 'utf8'), url);
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
