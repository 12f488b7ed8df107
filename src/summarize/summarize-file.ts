import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Config, Level } from '../config/schema.js';
import { InputError } from '../errors.js';
import { createTokenizer } from '../tokenize/tokenizer.js';
import type { CandidateFile, RunContext } from '../types.js';
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
  const file = await readRootFile(root, options.file, config.collect.max_file_bytes);
  const ports = resolveLevelsPorts({ root, config }, options.useCache ? deps : { ...deps, summaryCache: null, tokenCache: null });
  const ctx: RunContext = {
    config,
    tokenizer: await createTokenizer(config.tokenizer),
    reporter: silentReporter(),
    nowMs: (deps.now ?? Date.now)(),
    warnings: [],
  };
  const built = await createFileLevels(config, ports)(file, file.mtimeMs, ctx);
  const chosen = built.levels.find((l) => l.level === level)!;
  return { path: file.path, level, tokens: chosen.tokens, content: chosen.content, cached: built.cached[level], warnings: ctx.warnings };
}

/** Read a file for summarizing: inside the root (symlinks resolved), not too large, not binary. */
export async function readRootFile(root: string, given: string, maxBytes: number): Promise<CandidateFile> {
  const abs = isAbsolute(given) ? given : resolve(root, given);
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    throw new InputError(`${given}: no such file under ${root}; give a path relative to the root (or --root the repository holding it)`);
  }
  const rootReal = await realpath(root);
  const rel = relative(rootReal, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new InputError(`${given}: outside the root ${rootReal}; only files inside the root are read (pass --root to change it)`);
  }
  const info = await stat(real);
  if (!info.isFile()) throw new InputError(`${given}: not a regular file`);
  if (info.size > maxBytes) throw new InputError(`${given}: ${info.size} bytes is over collect.max_file_bytes (${maxBytes}); raise it to summarize this file`);
  const bytes = await readFile(real);
  if (bytes.subarray(0, 8192).includes(0)) throw new InputError(`${given}: binary file (contains NUL bytes); only text files have levels`);
  return {
    path: rel.split(sep).join('/'),
    content: bytes.toString('utf8'),
    size: bytes.length,
    mtimeMs: Math.floor(info.mtimeMs),
    hash: createHash('sha256').update(bytes).digest('hex'),
    lineCount: countLines(bytes),
  };
}
