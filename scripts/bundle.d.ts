/** dist/sparrow.js: the bundle bin/sparrow.js runs. */
export const bundlePath: string;
/** Whether the bundle is at least as new as every source file. */
export function bundleFresh(): boolean;
/** Builds the bundle if it is not fresh; answers whether it built. */
export function ensureBundle(): Promise<boolean>;
