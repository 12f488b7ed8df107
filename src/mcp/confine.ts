import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { isInside } from '../manifest/paths.js';

/**
 * A path an MCP client gave, resolved against the served root and refused when it leads
 * outside it, also through symlinks (the nearest existing ancestor is resolved for a path that
 * does not exist yet). Returns the absolute path.
 */
export async function resolveInsideRoot(root: string, given: string, argument: string): Promise<string> {
  const abs = isAbsolute(given) ? given : resolve(root, given);
  const real = await realpathOfNearest(abs);
  if (!isInside(root, real)) {
    throw new InputError(`${argument} "${given}" is outside the root ${root}: the server reads only inside the root it was started with (--root)`);
  }
  return abs;
}

async function realpathOfNearest(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return resolve(await realpathOfNearest(parent), path.slice(parent.length + 1));
  }
}
