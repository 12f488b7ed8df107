import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The compiled worker module `fileName` beside the module at `moduleUrl` (a worker thread runs
 * JavaScript). Run from the TypeScript sources (the test runner), it is the build's copy under
 * dist/ (`npm test` builds first). Undefined when there is none: the caller works without a worker.
 */
export function compiledWorkerFile(moduleUrl: string, fileName: string): URL | undefined {
  const here = fileURLToPath(moduleUrl);
  let dir = here.slice(0, here.lastIndexOf(sep) + 1);
  if (here.endsWith('.ts')) {
    const src = dir.lastIndexOf(`${sep}src${sep}`);
    if (src < 0) return undefined;
    dir = `${dir.slice(0, src)}${sep}dist${dir.slice(src)}`;
  }
  const compiled = `${dir}${fileName}`;
  return existsSync(compiled) ? pathToFileURL(compiled) : undefined;
}
