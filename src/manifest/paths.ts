import { realpath } from 'node:fs/promises';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { credentialContentReason, credentialFileReason } from '../collect/exclusion-rules.js';
import { InputError } from '../errors.js';
import { locateInsideRoot, MAX_INPUT_FILE_BYTES, probeRegularFileSync, readRegularFileSync } from '../security/read-guard.js';
import { redactSecrets } from '../security/redact-secrets.js';
import type { KeyValueCache } from '../types.js';

export { isInside } from '../security/read-guard.js';

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
 * A missing file, a directory, a binary file, a file over the size cap or a credentials file
 * (`.env`, `id_rsa`, a kubeconfig, an `.npmrc` with a token) is reported, not thrown: the
 * assembly excludes it. Credentials pasted into ordinary files are redacted.
 */
export type ReadManifestFile = (path: string) => Promise<RootReadResult>;

export interface RootReaderOptions {
  /** False keeps credentials (collect.include_secrets): no credential-file rule, no redaction. */
  redactSecrets?: boolean;
  /** collect.max_file_bytes; default MAX_INPUT_FILE_BYTES. */
  maxBytes?: number;
  /** Findings cache of the redaction (by content hash). */
  secretCache?: KeyValueCache | null;
}

export function createRootReader(root: string, options: RootReaderOptions = {}): ReadManifestFile {
  const redact = options.redactSecrets ?? true;
  const maxBytes = options.maxBytes ?? MAX_INPUT_FILE_BYTES;
  let realRoot: Promise<string> | undefined;
  return async (path) => {
    realRoot ??= realpath(root);
    const located = await locateInRoot(root, await realRoot, path);
    if (located.kind === 'missing') return located;
    // A manifest asks for a file, not for the credentials in it (collect.include_secrets keeps them).
    const byName = redact ? credentialFileReason(normalizeManifestPath(path)) ?? credentialFileReason(located.relPath) : undefined;
    if (byName !== undefined) return { kind: 'missing', reason: byName };
    const read = readRegularFileSync(located.real, { maxBytes, followSymlinks: false });
    if (read.kind === 'refused') return { kind: 'missing', reason: read.code === 'not-found' ? UNREADABLE_REASONS.notFound : read.code === 'not-regular' ? UNREADABLE_REASONS.notAFile : `file ${read.reason}` };
    const bytes = read.file.bytes;
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { kind: 'missing', reason: UNREADABLE_REASONS.binary };
    const text = bytes.toString('utf8');
    if (!redact) return { kind: 'ok', content: text };
    const byContent = credentialContentReason(located.relPath, text);
    if (byContent !== undefined) return { kind: 'missing', reason: byContent };
    return { kind: 'ok', content: (await redactSecrets(text, { cache: options.secretCache ?? null })).text };
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
): Promise<{ kind: 'ok'; real: string; relPath: string } | { kind: 'missing'; reason: string }> {
  const problem = manifestPathProblem(path);
  if (problem) throw new InputError(`working-set path ${problem}`);
  const located = locateInsideRoot(root, path, realRoot);
  if (located.kind === 'refused') {
    if (located.code === 'not-found') return { kind: 'missing', reason: UNREADABLE_REASONS.notFound };
    if (located.code === 'outside-root') {
      throw new InputError(`working-set path "${path}" is a symlink leading outside the root: remove it from the manifest or point the link inside ${root}`);
    }
    throw new InputError(`cannot resolve working-set path "${path}": it ${located.reason}`);
  }
  const kind = probeRegularFileSync(located.realPath, { followSymlinks: false });
  if (kind.kind === 'refused') return { kind: 'missing', reason: kind.code === 'not-found' ? UNREADABLE_REASONS.notFound : UNREADABLE_REASONS.notAFile };
  return { kind: 'ok', real: located.realPath, relPath: located.relPath };
}
