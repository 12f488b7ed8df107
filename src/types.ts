import type { Config, FileCategory, Level, OverflowStrategy, TierName } from './config/schema.js';
import type { Tokenizer } from './tokenize/tokenizer.js';
import type { TaskFacts } from './scoring/task-facts.js';
import type { FactSource } from './facts/fact-kind.js';
import type { Derive } from './scoring/derived.js';
import type { ImportGraphCache } from './scoring/import-graph/graph-cache.js';

export type { Config, FileCategory, Level, TierName } from './config/schema.js';
export type { Tokenizer, TokenizerId } from './tokenize/tokenizer.js';

/** The five factors of spec 003, by their spec names. */
export const FACTOR_NAMES = ['task_alignment', 'recency', 'mention_density', 'dependency_depth', 'file_type'] as const;
export type FactorName = (typeof FACTOR_NAMES)[number];

/** A file the collect stage accepted as a candidate. Paths are root-relative with `/`. */
export interface CandidateFile {
  /** Root-relative POSIX path. */
  path: string;
  /** UTF-8 text (invalid sequences replaced with U+FFFD). */
  content: string;
  /** Bytes on disk. */
  size: number;
  /** Last modification time on disk, epoch ms. */
  mtimeMs: number;
  /**
   * Content address, hex: the git blob id of the raw bytes (sha1 of `blob <size>\0<bytes>`, the
   * same id `git ls-files -s` gives, so a tracked unmodified file needs no reading to get it), or
   * a sha256 of the redacted text for a file whose credentials were redacted. Keys every
   * content-addressed cache.
   */
  hash: string;
  lineCount: number;
  /** Per-blob facts (terms, mentions, imports) from the fact store; absent = computed from content. */
  facts?: FactSource;
}

/** A file the collect stage (or a later stage) refused, with the reason recorded. */
export interface ExcludedFile {
  path: string;
  reason: string;
  relevance_score?: number;
}

/** Git facts gathered once per run, at the edge. */
export interface GitFacts {
  /** False outside a git repository: recency is neutral and a warning is recorded. */
  isRepo: boolean;
  /** Last commit time per path, epoch ms (one `git log` pass). */
  lastCommitMs: Map<string, number>;
  /** Listed paths (not excluded by path rules) modified, staged or untracked in the working tree: they count as just changed. */
  dirty: Set<string>;
  /** HEAD commit, when there is one. */
  head?: string;
  /** True for a shallow clone: history-based signals are partial. */
  isShallow?: boolean;
  /** Which files changed together in recent commits (relevance_scoring.co_change); absent = off or no history. */
  coChange?: CoChangeTable;
}

/** Per path: how many walked commits touched it, and with which other paths how often. */
export interface CoChangeTable {
  /** Commits walked (huge ones skipped). */
  commits: number;
  touched: Map<string, number>;
  pairs: Map<string, Map<string, number>>;
}

/** Output of the collect stage. */
export interface CollectResult {
  root: string;
  files: CandidateFile[];
  excluded: ExcludedFile[];
  git: GitFacts;
  warnings: string[];
}

/** One factor's value for one file: `raw` is the measurement, `score` its normalised [0,1] value. */
export interface FactorScore {
  raw: number;
  score: number;
  /** Human explanation, e.g. "bm25 7.31 (rank 2/140); semantic 0.62". */
  detail?: string;
}

export type FactorScores = Record<FactorName, FactorScore>;

export interface ScoredFile {
  path: string;
  category: FileCategory;
  factors: FactorScores;
  /** Weighted sum of factor scores, in [0,1]. */
  relevance: number;
  /** True when the task @-mentions this file: it is promoted to primary whenever anything is. */
  mentionedInTask: boolean;
}

/** Input every scoring signal receives. Pure data; I/O happened before. */
export interface SignalInput {
  task: string;
  /** The task read once for the run (terms, @-references, named files): signals never re-parse `task`. */
  facts: TaskFacts;
  files: CandidateFile[];
  git: GitFacts;
  /** Epoch ms of "now" from the injected clock. */
  nowMs: number;
  /**
   * The scores of the signals earlier in the registry, by factor (dependency depth reads
   * alignment); a file a signal did not score is absent (its factor is neutral).
   */
  prior: ReadonlyMap<FactorName, ReadonlyMap<string, FactorScore>>;
  /** Category of every file, computed once. */
  categories: Map<string, FileCategory>;
  /**
   * Task-independent data derived from `files` (the import graph), built once per collected file
   * set: a long-lived score stage (the warm index) hands the same value back until a file
   * changes, then updates it from the changed files (scoring/derived.ts). Absent: build it now.
   */
  derived?: Derive;
  /** Where a one-shot run keeps its import graph for the next run over the same files (absent: build it). */
  importGraphCache?: ImportGraphCache;
  /**
   * The stage answers query after query (a warm index): a signal may build in `derived` what only
   * pays off over several queries (BM25's inverted index). Absent: one run.
   */
  longLived?: boolean;
}

/** A scoring signal: one file in src/scoring/signals registers one factor. */
export interface Signal {
  readonly name: FactorName;
  score(input: SignalInput, ctx: RunContext, deps: SignalDeps): Promise<Map<string, FactorScore>> | Map<string, FactorScore>;
}

/** Ports a signal may use. Only semantic alignment needs more than data. */
export interface SignalDeps {
  embedder?: Embedder;
  cache?: KeyValueCache;
}

/** The embedder port (a static model run directly, or transformers.js; a tiny real model in tests). */
export interface Embedder {
  /** Stable id recorded in budget records and cache keys, e.g. `aiwg/glove-100d@1`. */
  readonly id: string;
  readonly dimensions: number;
  /** Unit-normalised vectors, one per text. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Load the model now rather than on the first embed() (a long-lived caller does it while idle). */
  load?(): Promise<void>;
  /**
   * Let the loaded model go (and the thread it runs on): a one-shot run does once it has every
   * vector it needs, so its later steps do not carry the model's memory. Resolves once it is
   * gone; a later embed() loads it again.
   */
  release?(): Promise<void>;
}

/** A content-addressed key/value cache port (disk + LRU in production, a Map in tests). */
export interface KeyValueCache {
  get(namespace: string, key: string): Promise<string | undefined>;
  set(namespace: string, key: string, value: string): Promise<void>;
}

/** Logs and progress go to stderr through this reporter; never to stdout. */
export interface Reporter {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
  /** Progress of a long step; implementations turn themselves off when stderr is not a TTY. */
  progress(step: string, done: number, total: number): void;
}

/** The per-run context object handed to every stage. */
export interface RunContext {
  config: Config;
  tokenizer: Tokenizer;
  reporter: Reporter;
  /** Epoch ms, from the injected clock. */
  nowMs: number;
  /** Warnings collected for the budget record. */
  warnings: string[];
  /**
   * The environment the entry edge passed (the CLI passes its own): where the stages look up
   * summarization.llm.api_key_env, XDG_CACHE_HOME and what git subprocesses inherit. Library
   * code never reads process.env; absent = an empty environment (git inherits the process's).
   */
  env?: RuntimeEnv;
  /**
   * Called by collect for each file whose blob it reads because its facts are missing: later
   * stages will see new content (the pipeline has the score stage load its embedding model and
   * embed the file's chunks meanwhile).
   */
  onNewContent?: (file: CandidateFile) => void;
  /**
   * Called by collect, at most once, as soon as git's index shows a tracked file whose facts are
   * missing, before any file is read: new content is coming (the pipeline has the score stage load
   * its embedding model while git status still runs).
   */
  onNewContentAhead?: () => void;
}

/** Environment variables handed in by the entry edge. */
export type RuntimeEnv = Readonly<Record<string, string | undefined>>;

/** One level of one file, with its exact token count under the run's tokenizer. */
export interface LevelContent {
  level: Level;
  content: string;
  tokens: number;
}

/** A file chosen for the context, at the level the allocator picked. */
export interface AllocatedFile {
  path: string;
  tier: TierName;
  level: Level;
  /** Tokens of the rendered block (content + wrapper) under the run's tokenizer. */
  tokens: number;
  relevance_score: number;
  factors: Record<FactorName, number>;
  content: string;
  /** Set when the overflow strategy `truncate` cut the content. */
  truncated?: boolean;
}

export interface TierAllocation {
  budget: number;
  total_tokens: number;
  files: AllocatedFile[];
}

export interface OverflowInfo {
  occurred: boolean;
  strategy_applied: OverflowStrategy | null;
  files_affected: string[];
}
