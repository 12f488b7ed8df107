import { stat, realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/** Resolve `--root` (default: cwd) to a real directory path, or fail with a usage error. */
export async function resolveRoot(value: unknown, cwd: string): Promise<string> {
  const given = typeof value === 'string' ? value : '.';
  const abs = resolveFromCwd(given, cwd);
  let info;
  try {
    info = await stat(abs);
  } catch {
    throw new UsageError(`--root ${given}: no such directory; pass the repository to read, e.g. --root .`);
  }
  if (!info.isDirectory()) throw new UsageError(`--root ${given}: not a directory; pass the repository folder, not a file`);
  return realpath(abs);
}

export function resolveFromCwd(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
