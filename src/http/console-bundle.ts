import { createHash } from 'node:crypto';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PACKAGE_ROOT } from '../util/package-root.ts';

/**
 * The console as the browser loads it: console/js/app.js and every module it imports, the
 * server's rule modules (`js/rules/*.js` → their TypeScript, as SHARED_MODULES maps them) included,
 * bundled by esbuild into one minified script named by its content's hash, with its source map;
 * and the stylesheet, named the same way. The sources under console/ stay the truth: this is
 * built from them (about 0.1 s) once per process, on the first request for the console.
 */
export interface ConsoleBundle {
  /** Served path (relative to /console/) → file. */
  files: Map<string, { body: Buffer; gzip?: Buffer; type: string }>;
  /** The served path of the script (`js/app-<hash>.js`). */
  script: string;
  /** The served path of the stylesheet (`style-<hash>.css`). */
  style: string;
}

const JS = 'text/javascript; charset=utf-8';

/** The first 16 characters of the base64url SHA-256 of a file: its name changes with any byte. */
export const contentHash = (body: Buffer | string) =>
  createHash('sha256').update(body).digest('base64url').slice(0, 16);

/**
 * Builds the bundle. `shared` maps the console paths of the rule modules (`js/rules/segments.js`)
 * to their TypeScript sources (relative to the package root).
 */
export async function buildConsoleBundle(
  consoleRoot: string,
  shared: Readonly<Record<string, string>>,
  style: Buffer,
): Promise<ConsoleBundle> {
  const esbuild = await import('esbuild');
  const jsRoot = path.join(consoleRoot, 'js');
  const out = await esbuild.build({
    entryPoints: [path.join(jsRoot, 'app.js')],
    outdir: jsRoot,
    entryNames: 'app',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    plugins: [
      {
        name: 'console-rules',
        setup(build) {
          // The rules are not files under console/: they resolve to the server's TypeScript.
          build.onResolve({ filter: /\/rules\/[\w-]+\.js$/ }, (args) => {
            const full = path.resolve(args.resolveDir, args.path);
            const key = path.relative(consoleRoot, full).split(path.sep).join('/');
            const source = shared[key];
            if (!source) return { errors: [{ text: `${key} is not one of the served rule modules` }] };
            return { path: path.join(PACKAGE_ROOT, source) };
          });
        },
      },
    ],
  });
  const code = out.outputFiles.find((f) => f.path.endsWith('.js'));
  const map = out.outputFiles.find((f) => f.path.endsWith('.js.map'));
  if (!code || !map) throw new Error('esbuild answered no console bundle');
  const name = `app-${contentHash(code.text)}.js`;
  // esbuild names the map after the entry (app.js.map); the script points at the hashed name.
  const text = code.text.replace(
    /\/\/# sourceMappingURL=app\.js\.map\s*$/,
    `//# sourceMappingURL=${name}.map\n`,
  );
  const script = `js/${name}`;
  const styleName = `style-${contentHash(style)}.css`;
  const files = new Map<string, { body: Buffer; gzip?: Buffer; type: string }>();
  const add = (key: string, body: Buffer, type: string) =>
    files.set(key, { body, gzip: gzipSync(body, { level: 9 }), type });
  add(script, Buffer.from(text), JS);
  add(`${script}.map`, Buffer.from(map.text), 'application/json; charset=utf-8');
  add(styleName, style, 'text/css; charset=utf-8');
  return { files, script, style: styleName };
}

/**
 * The shell pointing at the bundle: the module script and the stylesheet of index.html replaced
 * by their hashed names (the page is otherwise as written).
 */
export function bundledShell(html: string, bundle: Pick<ConsoleBundle, 'script' | 'style'>): string {
  const shell = html
    .replace('src="/console/js/app.js"', `src="/console/${bundle.script}"`)
    .replace('href="/console/style.css"', `href="/console/${bundle.style}"`);
  if (!shell.includes(bundle.script) || !shell.includes(bundle.style))
    throw new Error('console/index.html no longer loads /console/js/app.js and /console/style.css');
  return shell;
}
