import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The compiled worker module at `path` under the build's dist/src/ (a worker thread runs one
 * JavaScript file and what it imports), e.g. `summarize/syntax/outline-worker.js`. This module
 * runs as dist/src/util/worker-file.js (the library), inside the command line's bundle under
 * dist/cli/ (scripts/bundle-cli.mjs), or as src/util/worker-file.ts (the test runner, after
 * `npm test` has built): each finds the package's root as the nearest directory above it that
 * holds a package.json. Undefined when there is no such file: the caller works without a worker.
 */
export function compiledWorkerFile(path: string): URL | undefined {
  packageRoot ??= nearestPackageRoot(dirname(fileURLToPath(import.meta.url)));
  if (packageRoot === null) return undefined;
  const compiled = join(packageRoot, 'dist', 'src', path);
  return existsSync(compiled) ? pathToFileURL(compiled) : undefined;
}

let packageRoot: string | null | undefined;

function nearestPackageRoot(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (dirname(at) === at) return null;
  }
}
