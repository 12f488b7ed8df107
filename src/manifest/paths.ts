import { redactSecrets } from '../collect/redact-secrets.js';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';

/**
 * Path confinement for manifests: every path a working set names is relative to the root and
 * must stay inside it, also after following symlinks. A manifest is input an agent may edit,
 * so these checks are the boundary between "files of this repository" and "anything on disk".
 */

/** Why a manifest path is not acceptable, or null when it is a clean root-relative path. */
export function manifestPathProblem(path: string): string | null {
  if (path.trim() === '') return 'is empty: give a file path relative to the root';
  if (path.includes('\0')) return 'contains a NUL byte';
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\')) {
    return `"${path}" is absolute: write it relative to the root (e.g. "src/main.ts")`;
  }
  const normalized = normalizeManifestPath(path);
  if (normalized === '..' || normalized.startsWith('../')) {
    return `"${path}" leads outside the root through "..": only files inside the root can be in a working set`;
  }
  if (normalized === '.') return `"${path}" names the root itself: name a file`;
  return null;
}

/** POSIX, no `./` prefix, no duplicate or trailing slashes. */
export function normalizeManifestPath(path: string): string {
  const posixPath = path.replace(/\\/g, '/');
  const normalized = posix.normalize(posixPath);
  return normalized.replace(/^\.\/+/, '').replace(/\/+$/, '');
}

/**
 * Turn a path typed on the command line (absolute, or relative to the root) into a clean
 * root-relative manifest path, refusing anything outside the root.
 */
export function toRootRelative(root: string, typed: string): string {
  const abs = resolve(root, typed);
  const rel = relative(resolve(root), abs).split(sep).join('/');
  if (rel === '' || rel === '..' || rel.startsWith('../') || isAbsolute(rel)) {
    throw new InputError(`path "${typed}" is outside the root ${root}: only files inside the root can be in a working set`);
  }
  return normalizeManifestPath(rel);
}

/** Why the root reader could not give a file's text; the assembly reports these as excluded. */
export const UNREADABLE_REASONS = {
  notFound: 'not found',
  notAFile: 'not a regular file',
  binary: 'binary file (contains NUL bytes)',
} as const;

/** Bytes inspected for NUL to tell binary from text (as git does). */
const BINARY_SNIFF_BYTES = 8000;

/** Result of reading a manifest file through the root reader. */
export type RootReadResult = { kind: 'ok'; content: string } | { kind: 'missing'; reason: string };

/**
 * The readFile port of the assembly: reads a root-relative path, resolving symlinks and
 * refusing (InputError) any path whose real location is outside the real root.
 * A missing file, a directory or a binary file is reported, not thrown: the assembly excludes it.
 */
export type ReadManifestFile = (path: string) => Promise<RootReadResult>;

export function createRootReader(root: string, options: { redactSecrets?: boolean } = {}): ReadManifestFile {
  const redact = options.redactSecrets ?? true;
  let realRoot: Promise<string> | undefined;
  return async (path) => {
    realRoot ??= realpath(root);
    const located = await locateInRoot(root, await realRoot, path);
    if (located.kind === 'missing') return located;
    const bytes = await readFile(located.real);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { kind: 'missing', reason: UNREADABLE_REASONS.binary };
    const text = bytes.toString('utf8');
    // A manifest asks for a file, not for the credentials pasted into it (collect.include_secrets keeps them).
    return { kind: 'ok', content: redact ? redactSecrets(text).text : text };
  };
}

/**
 * Where a root-relative path really is: its real path when it is a regular file inside the
 * real root, `missing` when absent or not a file; InputError when it leads outside the root.
 */
export async function locateInRoot(
  root: string,
  realRoot: string,
  path: string,
): Promise<{ kind: 'ok'; real: string } | { kind: 'missing'; reason: string }> {
  const problem = manifestPathProblem(path);
  if (problem) throw new InputError(`working-set path ${problem}`);
  let real: string;
  try {
    real = await realpath(resolve(root, path));
  } catch (error) {
    if (isNotFound(error)) return { kind: 'missing', reason: UNREADABLE_REASONS.notFound };
    throw new InputError(`cannot resolve working-set path "${path}": ${(error as Error).message}`, { cause: error });
  }
  if (!isInside(realRoot, real)) {
    throw new InputError(
      `working-set path "${path}" is a symlink leading outside the root (to ${real}): remove it from the manifest or point the link inside ${root}`,
    );
  }
  const info = await stat(real);
  if (!info.isFile()) return { kind: 'missing', reason: UNREADABLE_REASONS.notAFile };
  return { kind: 'ok', real };
}

/** True when `child` is `parent` or below it (both absolute, already real). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
