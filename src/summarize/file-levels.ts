import { sha256Hex } from '../util/hash.js';
import type { Config, Level } from '../config/schema.js';
import { countAll, type Tokenizer } from '../tokenize/tokenizer.js';
import type { CandidateFile, KeyValueCache, LevelContent, RunContext } from '../types.js';
import { analyzeFile, fileTypeForPath, type FileAnalysis } from './outline/index.js';
import { renderOutline } from './outline/render.js';
import { applyPreserve, preservesAll } from './outline/preserve.js';
import { focusOutline, mentionsAny } from './outline/focus.js';
import { buildStub } from './stub.js';
import type { SyntaxEngine } from './syntax/engine.js';
import { OUTLINE_VERSION } from './syntax/outline.js';
import { LOCAL_SUMMARIZER, summarizeLocally } from './summarizers/local.js';
import type { LlmSummarizer } from './summarizers/llm.js';

/** Above this many tokens the LLM summarizer is sent the detailed outline instead of the file. */
export const LLM_MAX_INPUT_TOKENS = 6000;

export interface FileLevelsPorts {
  syntax: SyntaxEngine;
  /** Detailed and summary entries; undefined = not cached. */
  summaryCache?: KeyValueCache;
  /** Token counts of whole files; undefined = not cached. */
  tokenCache?: KeyValueCache;
  llm?: LlmSummarizer;
}

export interface FileLevels {
  /** full, detailed, summary, stub: in that order, tokens never increasing. */
  levels: LevelContent[];
  /** Whether each level's own content (or token count, for full) came from a cache. */
  cached: Record<Level, boolean>;
}

/**
 * `focus`: identifiers the task writes as code. When the file defines one of them, its detailed
 * level is the query-aware one (those definitions whole, the rest as outline), derived from the
 * outline and the content, not cached: the task is not part of any cache key.
 */
export type BuildFileLevels = ((file: CandidateFile, lastModifiedMs: number, ctx: RunContext, focus?: readonly string[]) => Promise<FileLevels>) & {
  /**
   * Before the levels of `files` are built: look up each file's cached detailed entry and full
   * count, and count the whole text of every file whose token count no cache holds, in one batch
   * (a run with hundreds of new blobs otherwise pays a round trip to the tokenizer's thread per
   * file); the build of each file takes what was found and counted here. And
   * start the outline of every file whose detailed level no cache holds on the outline pool's
   * thread (outline-pool.ts), which parses while this one builds.
   */
  prepare(files: readonly CandidateFile[], ctx: RunContext): Promise<void>;
};

/**
 * Builds the four levels of one file: the cold path parses and renders, the warm path is two or
 * three cache lookups. Create one per run or stage and reuse it for every file.
 */
export function createFileLevels(config: Config, ports: FileLevelsPorts): BuildFileLevels {
  const warned = new Set<string>();
  let llmUsable = true;
  const warnOnce = (ctx: RunContext, id: string, message: string) => {
    if (warned.has(id)) return;
    warned.add(id);
    ctx.warnings.push(message);
    ctx.reporter.warn(message);
  };
  const limits = config.summarization.levels;
  // A non-default `preserve` list gives a different outline: it gets its own cache entries.
  const preserveTag = preservesAll(limits.detailed.preserve) ? '' : `+preserve:${sha256Hex([...limits.detailed.preserve].sort().join('\0')).slice(0, 12)}`;
  const { invalidate_on_change: invalidateOnChange } = config.summarization.caching;

  const cachedJson = async (cache: KeyValueCache | undefined, ns: string, key: string, limit: number): Promise<LevelText | undefined> => {
    const raw = await cache?.get(ns, key);
    if (raw === undefined) return undefined;
    try {
      const value = JSON.parse(raw) as Partial<LevelText>;
      const valid = typeof value.content === 'string' && Number.isInteger(value.tokens) && value.tokens! >= 0 && (limit < 0 || value.tokens! <= limit);
      return valid ? (value as LevelText) : undefined;
    } catch {
      return undefined;
    }
  };
  const store = async (ctx: RunContext, cache: KeyValueCache | undefined, ns: string, key: string, value: string) => {
    try {
      await cache?.set(ns, key, value);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      const name = cache === ports.tokenCache ? 'token-count' : `${ns}-level`;
      warnOnce(ctx, `cache-write:${name}`, `could not write the ${name} cache (${code}): levels are computed but not cached`);
    }
  };

  /**
   * What the last prepare found for each file (the cached detailed entry and full count, each
   * undefined on a miss) and, for a miss, the count it made: the build takes it instead of asking
   * the caches and counting the whole text again.
   */
  const prepared = new Map<CandidateFile, { found: Awaited<ReturnType<typeof cachedDetailedAndFull>>; counted?: number }>();
  const subjectOf = (file: CandidateFile) => (invalidateOnChange ? file.hash : sha256Hex(`path\0${file.path}`));
  const detailedKeyOf = (subject: string, tokenizer: Tokenizer) => `${subject}.${variant(`outline@${OUTLINE_VERSION}${preserveTag}`, tokenizer, limits.detailed.token_limit)}`;
  /** The cached detailed entry and full token count of a file, each undefined when no cache holds it. */
  const cachedDetailedAndFull = async (file: CandidateFile, tokenizer: Tokenizer) => {
    const subject = subjectOf(file);
    // The detailed entry also carries the full token count when it is keyed by content, so a
    // warm file costs two reads (detailed, summary), not three.
    const detailed = await cachedJson(ports.summaryCache, 'detailed', detailedKeyOf(subject, tokenizer), limits.detailed.token_limit);
    // full: the file itself; its token count is the main cold cost, so it is cached by content.
    let fullTokens = subject === file.hash && Number.isInteger(detailed?.fullTokens) ? detailed!.fullTokens! : undefined;
    if (fullTokens === undefined) {
      const countText = await ports.tokenCache?.get(tokenizer.id, file.hash);
      if (countText !== undefined && /^\d+$/.test(countText)) fullTokens = Number(countText);
    }
    return { detailed, fullTokens };
  };

  const build = async (file: CandidateFile, lastModifiedMs: number, ctx: RunContext, focus?: readonly string[]): Promise<FileLevels> => {
    const { tokenizer } = ctx;
    const subject = subjectOf(file);
    let analysis: FileAnalysis | undefined;
    const analyze = async () => (analysis ??= await analyzeFile(file.path, file.content, { syntax: ports.syntax }));
    const cached: Record<Level, boolean> = { full: false, detailed: false, summary: false, stub: false };

    const detailedKey = detailedKeyOf(subject, tokenizer);
    // what prepare looked up and counted for this file, taken once
    const ahead = prepared.get(file);
    prepared.delete(file);
    let { detailed, fullTokens } = ahead?.found ?? (await cachedDetailedAndFull(file, tokenizer));
    cached.detailed = detailed !== undefined;
    cached.full = fullTokens !== undefined;
    if (fullTokens === undefined) {
      fullTokens = ahead?.counted ?? tokenizer.count(file.content);
      // the detailed entry written below carries the count when it is keyed by content: one write, not two
      const carried = detailed === undefined && subject === file.hash && ports.summaryCache !== undefined && config.summarization.enabled;
      if (!carried) await store(ctx, ports.tokenCache, tokenizer.id, file.hash, String(fullTokens));
    }
    const full: LevelText = { content: file.content, tokens: fullTokens };
    // The stub depends on path and date, not content: cheap, never cached.
    const stubLevel = async () => {
      const fileType = analysis?.fileType ?? (await stubFileType(file, analyze));
      return buildStub({ path: file.path, fileType, lastModifiedMs, lineCount: file.lineCount }, tokenizer, limits.stub.token_limit, limits.stub.include);
    };
    // Summarization off: a file is either whole or a stub (detailed and summary repeat the stub),
    // so nothing is parsed, summarised or cached for the two levels nobody shows.
    if (!config.summarization.enabled) {
      cached.detailed = false;
      const stub = await stubLevel();
      return { levels: levelContents([full, stub, stub, stub]), cached };
    }

    // a new detailed entry, written once the local summary it carries is known (one write, not two)
    let pending: LevelText | undefined;
    if (!detailed) {
      const a = await analyze();
      detailed = measure(renderOutline(applyPreserve(a.items, limits.detailed.preserve), { tokenizer, limit: limits.detailed.token_limit, commentPrefix: a.commentPrefix }), tokenizer);
      pending = subject === file.hash ? { ...detailed, fullTokens } : { ...detailed };
    }
    const summaryLimit = limits.summary.token_limit;
    const localVariant = variant(`${LOCAL_SUMMARIZER.id}@${LOCAL_SUMMARIZER.version}`, tokenizer, summaryLimit);
    const localKey = `${subject}.${localVariant}`;
    let summary: LevelText | undefined;
    if (ports.llm && llmUsable) {
      const llmKey = `${subject}.${variant(`${ports.llm.id}@${ports.llm.version}`, tokenizer, summaryLimit)}`;
      summary = await cachedJson(ports.summaryCache, 'summary', llmKey, summaryLimit);
      cached.summary = summary !== undefined;
      if (!summary) {
        try {
          const text = fullTokens <= LLM_MAX_INPUT_TOKENS ? file.content : detailed.content;
          summary = measure(await ports.llm.summarize({ path: file.path, fileType: (await analyze()).fileType, text }, tokenizer, summaryLimit), tokenizer);
          await store(ctx, ports.summaryCache, 'summary', llmKey, JSON.stringify(summary));
        } catch (error) {
          // One failure turns the LLM off for the rest of the run: a dead endpoint costs one timeout, not one per file.
          llmUsable = false;
          warnOnce(ctx, 'llm', `${error instanceof Error ? error.message : String(error)}; used the local summarizer instead`);
        }
      }
    }
    if (!summary) {
      // A fallback summary is cached under the local id only, so the LLM is asked again next run.
      // The detailed entry carries it (one read on a warm run); an entry of its own is the fallback.
      summary = carriedSummary(detailed, localVariant, summaryLimit) ?? (await cachedJson(ports.summaryCache, 'summary', localKey, summaryLimit));
      cached.summary = summary !== undefined;
      if (!summary) {
        summary = measure(summarizeLocally({ analysis: await analyze(), lineCount: file.lineCount, fullTokens }, tokenizer, summaryLimit), tokenizer);
        if (!pending) await store(ctx, ports.summaryCache, 'summary', localKey, JSON.stringify(summary));
      }
      if (pending) pending.summary = { variant: localVariant, content: summary.content, tokens: summary.tokens };
    }
    if (pending) await store(ctx, ports.summaryCache, 'detailed', detailedKey, JSON.stringify(pending));

    const stub = await stubLevel();

    // After the summary: the LLM summarizes the task-independent outline, which its cache key assumes.
    let shown = detailed;
    if (focus !== undefined && focus.length > 0 && mentionsAny(file.content, focus)) {
      const a = await analyze();
      const focused = focusOutline(applyPreserve(a.items, limits.detailed.preserve), file.content, new Set(focus));
      if (focused) {
        const text = renderOutline(focused.items, { tokenizer, limit: limits.detailed.token_limit, commentPrefix: a.commentPrefix });
        // Only when every named definition survived the limit whole; otherwise the task-independent level stays.
        if (focused.bodies.every((body) => text.includes(body))) shown = measure(text, tokenizer);
      }
    }

    const levels = monotone([full, shown, summary, stub], [limits.full.token_limit, limits.detailed.token_limit, limits.summary.token_limit, limits.stub.token_limit]);
    return { levels: levelContents(levels), cached };
  };
  const prepare: BuildFileLevels['prepare'] = async (files, ctx) => {
    prepared.clear();
    const uncounted: CandidateFile[] = [];
    const unparsed: CandidateFile[] = [];
    for (const file of files) {
      const found = await cachedDetailedAndFull(file, ctx.tokenizer);
      prepared.set(file, { found });
      if (found.fullTokens === undefined) uncounted.push(file);
      if (found.detailed === undefined) unparsed.push(file);
    }
    // summarization off parses nothing (build shows a file whole or as a stub)
    if (config.summarization.enabled) ports.syntax.prefetch(unparsed);
    if (uncounted.length > 1) {
      const counts = countAll(ctx.tokenizer, uncounted.map((file) => file.content));
      uncounted.forEach((file, i) => (prepared.get(file)!.counted = counts[i]));
    }
  };
  return Object.assign(build, { prepare });
}

const LEVEL_ORDER: readonly Level[] = ['full', 'detailed', 'summary', 'stub'];

/** Full, detailed, summary and stub, in that order, as the stage hands them on. */
function levelContents(levels: readonly LevelText[]): LevelContent[] {
  return levels.map((l, i) => ({ level: LEVEL_ORDER[i]!, content: l.content, tokens: l.tokens }));
}

interface LevelText {
  content: string;
  tokens: number;
  /** Only in detailed entries keyed by content: the full level's token count. */
  fullTokens?: number;
  /** Only in detailed entries: the local summary of the same subject, for the summarizer, tokenizer and limit `variant` names. */
  summary?: { variant: string; content: string; tokens: number };
}

/** The local summary a detailed entry carries, when it is the one asked for (`localVariant`) and within the limit. */
function carriedSummary(detailed: LevelText, localVariant: string, limit: number): LevelText | undefined {
  const carried = detailed.summary;
  if (carried?.variant !== localVariant || typeof carried.content !== 'string' || !Number.isInteger(carried.tokens) || carried.tokens < 0) return undefined;
  return limit >= 0 && carried.tokens > limit ? undefined : { content: carried.content, tokens: carried.tokens };
}

function measure(content: string, tokenizer: Tokenizer): LevelText {
  return { content, tokens: tokenizer.count(content) };
}

/**
 * A level that would not be smaller than the level above repeats it (when the one above is
 * within this level's limit), so tokens never increase from full to stub.
 */
function monotone(levels: LevelText[], limitsByLevel: number[]): LevelText[] {
  const out: LevelText[] = [levels[0]!];
  for (let i = 1; i < levels.length; i++) {
    const above = out[i - 1]!;
    const own = levels[i]!;
    const limit = limitsByLevel[i]!;
    out.push(above.tokens <= own.tokens && (limit < 0 || above.tokens <= limit) ? above : own);
  }
  return out;
}

/** Which summarizer, tokenizer and limit produced an entry: part of its cache key. */
function variant(producer: string, tokenizer: Tokenizer, limit: number): string {
  return sha256Hex(`${producer}\0${tokenizer.id}\0${limit}`).slice(0, 16);
}

/**
 * The stub's file type without parsing on a warm run: the outliner registry decides by path,
 * and only files whose type depends on content (extensionless scripts) are analysed.
 */
async function stubFileType(file: CandidateFile, analyze: () => Promise<FileAnalysis>): Promise<string> {
  return fileTypeForPath(file.path) ?? (await analyze()).fileType;
}
