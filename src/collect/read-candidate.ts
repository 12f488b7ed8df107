import { createHash } from 'node:crypto';
import { isAbsolute, relative, sep } from 'node:path';
import type { CandidateFile, ExcludedFile } from '../types.js';
import type { CollectFs, FileInfo } from './collect-ports.js';
import { contentExclusion, type RuleOptions } from './exclusion-rules.js';
import { applyFindings, findSecretsCached, redactedContentHash } from '../security/redact-secrets.js';
import type { KeyValueCache } from '../types.js';
import { formatCount } from '../util/format.js';
import { underRoot } from '../util/root-path.js';

/** `redacted`: kinds of credentials replaced in the file's content (see redact-secrets.ts). */
export type ReadOutcome = { file: CandidateFile; redacted?: string[] } | { excluded: ExcludedFile };

export interface ReadOptions {
  fs: CollectFs;
  /** Real path of the root (symlinks resolved), native separators. */
  rootReal: string;
  maxBytes: number;
  rules: RuleOptions;
  /** Path-only checks re-run on a symlink's target, so a link cannot smuggle in what the target's own path would exclude. */
  pathCheck: (path: string) => string | undefined;
  /** Findings cache of the secret scan, keyed by the raw content hash (warm runs never rescan). */
  secretCache?: KeyValueCache | null;
}

/**
 * Read one root-relative path into a candidate, or say why not. Never throws for a file's
 * own trouble (vanished, unreadable, a link out of the root): that becomes the reason.
 */
export async function readCandidate(path: string, options: ReadOptions): Promise<ReadOutcome> {
  const { fs, rootReal, maxBytes } = options;
  const exclude = (reason: string): ReadOutcome => ({ excluded: { path, reason } });
  let abs = underRoot(rootReal, path);
  try {
    let info: FileInfo = await fs.lstat(abs);
    if (info.kind === 'symlink') {
      const target = await fs.realpath(abs).catch(() => undefined);
      if (target === undefined) return exclude('broken symlink');
      const targetRel = relative(rootReal, target);
      if (targetRel === '') return exclude('symlink to a directory: not followed');
      if (targetRel === '..' || targetRel.startsWith(`..${sep}`) || isAbsolute(targetRel))
        return exclude('symlink resolves outside the root: not followed');
      const targetPath = targetRel.split(sep).join('/');
      const targetReason = options.pathCheck(targetPath);
      if (targetReason !== undefined) return exclude(`symlink to ${targetPath}: ${targetReason}`);
      abs = target;
      info = await fs.stat(abs);
      if (info.kind === 'dir') return exclude('symlink to a directory: not followed');
    }
    if (info.kind === 'dir') return exclude('directory (git submodule or nested repository): not collected');
    if (info.kind !== 'file') return exclude('not a regular file');
    if (info.size > maxBytes) return exclude(tooLarge(info.size, maxBytes));
    const bytes = await fs.readFile(abs, maxBytes);
    // The file may have grown between stat and read.
    if (bytes.length > maxBytes) return exclude(tooLarge(bytes.length, maxBytes));
    const analysed = await analyseContent(path, bytes, options.rules, options.secretCache ?? null);
    if ('excluded' in analysed) return exclude(analysed.excluded);
    const { content, hash, lineCount, redacted } = analysed;
    return {
      file: { path, content, size: bytes.length, mtimeMs: Math.floor(info.mtimeMs), hash, lineCount },
      ...(redacted ? { redacted } : {}),
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return exclude('vanished before it could be read (deleted in the working tree?)');
    if (code === 'E_NOT_REGULAR') return exclude('not a regular file');
    if (code === 'E_TOO_LARGE') return exclude(`too large: over collect.max_file_bytes ${formatCount(maxBytes)}`);
    return exclude(`unreadable (${code})`);
  }
}

/** What reading a file's bytes tells: why it is refused, or its text (redacted), content hash and line count. */
export type ContentAnalysis = { blob: string } & (
  | { excluded: string }
  | { content: string; hash: string; lineCount: number; redacted?: string[]; findings?: SecretFindingRow[] }
);

/** A secret finding as the fact store keeps it: kind, start, end (offsets in the decoded text). */
export type SecretFindingRow = [kind: string, start: number, end: number];

/**
 * The content rules, the content hash and credential redaction of one file's bytes: the one
 * place every reader of candidate content (a full read, the fact store's first read of a blob)
 * goes through, so a redacted file never leaks and never shares a cache entry with its raw bytes.
 * The findings come back too, so a later lazy read of the same blob redacts without rescanning.
 */
export async function analyseContent(path: string, bytes: Buffer, rules: RuleOptions, secretCache: KeyValueCache | null = null): Promise<ContentAnalysis> {
  let text: string | undefined;
  const decoded = () => (text ??= bytes.toString('utf8'));
  const lineCount = countLines(bytes);
  const blob = gitBlobId(bytes);
  const reason = contentExclusion({ path, bytes, lineCount, text: decoded }, rules);
  if (reason !== undefined) return { blob, excluded: reason };
  if (rules.includeSecrets) return { blob, content: decoded(), hash: blob, lineCount };
  const findings = await findSecretsCached(decoded(), { cache: secretCache, hash: blob });
  if (findings.length === 0) return { blob, content: decoded(), hash: blob, lineCount };
  const redaction = applyFindings(decoded(), findings);
  // Content-addressed caches key on this hash: a redacted file must not share entries with its raw bytes.
  return { blob, content: redaction.text, hash: redactedContentHash(redaction.text), lineCount, redacted: redaction.kinds, findings: findings.map((f) => [f.kind, f.start, f.end]) };
}

/** The redacted text of content whose findings are known (a lazy read of a blob analysed before). */
export function redactKnownFindings(text: string, findings: readonly SecretFindingRow[] | undefined, rules: RuleOptions): string {
  if (rules.includeSecrets || !findings || findings.length === 0) return text;
  return applyFindings(text, findings.map(([kind, start, end]) => ({ kind, start, end }))).text;
}

/** Git's blob id of some bytes (what `git hash-object` prints): sha1 of `blob <size>\0<bytes>`. */
export function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Lines of a file from its bytes: 0x0A never occurs inside a multi-byte UTF-8 sequence. */
export function countLines(bytes: Buffer): number {
  if (bytes.length === 0) return 0;
  let lines = 1;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
  return bytes[bytes.length - 1] === 10 ? lines - 1 : lines;
}

function tooLarge(size: number, maxBytes: number): string {
  return `too large: ${formatCount(size)} bytes > collect.max_file_bytes ${formatCount(maxBytes)}`;
}

/** Run `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
