import { sha256Hex } from '../util/hash.js';
import type { Config, Level } from '../config/schema.js';
import { InputError } from '../errors.js';
import { createTokenizer } from '../tokenize/tokenizer.js';
import type { CandidateFile, KeyValueCache, RunContext } from '../types.js';
import { credentialContentReason, credentialFileReason } from '../collect/exclusion-rules.js';
import { locateInsideRoot, readRegularFileSync } from '../security/read-guard.js';
import { redactedContentHash, redactSecrets } from '../security/redact-secrets.js';
import { createSecretCache } from '../security/secret-cache.js';
import { silentReporter } from '../util/reporter.js';
import { countLines } from '../collect/read-candidate.js';
import { createFileLevels } from './file-levels.js';
import { resolveLevelsPorts, type LevelsStageDeps } from './levels-stage.js';

export interface SummarizeFileOptions {
  /** Real path of the repository root. */
  root: string;
  /** The file, absolute or relative to the root. */
  file: string;
  config: Config;
  level: Level;
  /** False: neither read nor write the caches. */
  useCache: boolean;
}

export interface SummarizeFileResult {
  /** Root-relative POSIX path. */
  path: string;
  level: Level;
  tokens: number;
  content: string;
  /** True when the level (its token count, for `full`) came from the cache. */
  cached: boolean;
  warnings: string[];
}

/** One level of one file, as `aiwg summarize` prints it. The file must lie inside the root. */
export async function summarizeFile(options: SummarizeFileOptions, deps: Partial<LevelsStageDeps> = {}): Promise<SummarizeFileResult> {
  const { root, level } = options;
  const caching = options.config.summarization.caching;
  // `--cache` wins over `caching.enabled: false`, `--no-cache` over everything.
  const config: Config = options.useCache && !caching.enabled
    ? { ...options.config, summarization: { ...options.config.summarization, caching: { ...caching, enabled: true } } }
    : options.config;
  const includeSecrets = config.collect.include_secrets;
  const secretCache = options.useCache && !includeSecrets ? createSecretCache(root, config) : null;
  const file = await readRootFile(root, options.file, config.collect.max_file_bytes, { includeSecrets, secretCache });
  // --no-cache: no cache is read either, the outline block store included
  const uncached: Config = { ...config, summarization: { ...config.summarization, caching: { ...config.summarization.caching, enabled: false } } };
  const ports = resolveLevelsPorts({ root, config: options.useCache ? config : uncached }, options.useCache ? deps : { ...deps, summaryCache: null, tokenCache: null });
  const ctx: RunContext = {
    config,
    tokenizer: await createTokenizer(config.tokenizer),
    reporter: silentReporter(),
    nowMs: (deps.now ?? Date.now)(),
    warnings: [],
  };
  const built = await createFileLevels(config, ports)(file, file.mtimeMs, ctx);
  // the blocks this outline parsed are kept for the next run, as a context-budget run keeps them
  await ports.syntax.save();
  const chosen = built.levels.find((l) => l.level === level)!;
  return { path: file.path, level, tokens: chosen.tokens, content: chosen.content, cached: built.cached[level], warnings: ctx.warnings };
}

/**
 * Read a file for summarizing through the read-path guard: inside the root (symlinks
 * resolved), a regular file, not too large, not binary, not a credentials file; credentials
 * pasted into it redacted. `includeSecrets` (collect.include_secrets) keeps them.
 */
export async function readRootFile(root: string, given: string, maxBytes: number, options: { includeSecrets?: boolean; secretCache?: KeyValueCache | null } = {}): Promise<CandidateFile> {
  const located = locateInsideRoot(root, given);
  if (located.kind === 'refused') {
    if (located.code === 'not-found') throw new InputError(`${given}: no such file under ${root}; give a path relative to the root (or --root the repository holding it)`);
    if (located.code === 'outside-root') throw new InputError(`${given}: outside the root ${root}; only files inside the root are read (pass --root to change it)`);
    throw new InputError(`${given}: ${located.reason}`);
  }
  const includeSecrets = options.includeSecrets ?? false;
  const byName = includeSecrets ? undefined : credentialFileReason(located.relPath);
  if (byName !== undefined) throw new InputError(`${given}: not summarized: ${byName}`);
  const read = readRegularFileSync(located.realPath, { maxBytes, followSymlinks: false });
  if (read.kind === 'refused') {
    const fix = read.code === 'too-large' ? '; raise collect.max_file_bytes to summarize this file' : '';
    throw new InputError(`${given}: ${read.reason}${fix}`);
  }
  const { bytes, mtimeMs } = read.file;
  if (bytes.subarray(0, 8192).includes(0)) throw new InputError(`${given}: binary file (contains NUL bytes); only text files have levels`);
  let content = bytes.toString('utf8');
  let hash = sha256Hex(bytes);
  if (!includeSecrets) {
    const byContent = credentialContentReason(located.relPath, content);
    if (byContent !== undefined) throw new InputError(`${given}: not summarized: ${byContent}`);
    const redaction = await redactSecrets(content, { cache: options.secretCache ?? null, hash });
    if (redaction.count > 0) {
      content = redaction.text;
      hash = redactedContentHash(content);
    }
  }
  return { path: located.relPath, content, size: bytes.length, mtimeMs: Math.floor(mtimeMs), hash, lineCount: countLines(bytes) };
}
