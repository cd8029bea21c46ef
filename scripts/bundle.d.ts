/** dist/sparrow.js: the bundle bin/sparrow.js runs. */
export const bundlePath: string;
/** Whether the bundle is at least as new as every source file. */
export function bundleFresh(): boolean;
/** Builds the bundle if it is not fresh; answers whether it built. */
export function ensureBundle(): Promise<boolean>;
/** Packages built into the bundles rather than loaded from node_modules. */
export const BUNDLED_PACKAGES: string[];
/** An esbuild plugin: every package external but BUNDLED_PACKAGES. */
export const externalPackages: import('esbuild').Plugin;
