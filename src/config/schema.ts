import { z } from 'zod';
import { TOKENIZER_IDS } from '../tokenize/tokenizer.js';
import { DEFAULT_SUMMARY_CACHE_PATH } from '../cache/cache-dir.js';

/**
 * The configuration schema: spec 003's "RAG Context Management Schema" (budget_config,
 * relevance_scoring, summarization) with its defaults, plus the settings a real tool needs
 * (tokenizer, cache, collect, embedding). schemas/rag-context-management.yaml is the same
 * document as JSON Schema; test/config/schema-drift.test.ts fails when the two drift.
 *
 * Objects are strict so a typo fails with its key path. Nested objects use `prefault({})`
 * so a partial user file is completed from the defaults here, and nowhere else.
 */

const nonNegInt = z.number().int().nonnegative();
const weight = z.number().min(0).max(1);

const tierSchema = (percentage: number, description: string) =>
  z
    .strictObject({
      percentage: z.number().min(0).max(100).default(percentage),
      description: z.string().default(description),
    })
    .prefault({});

/** A scoring factor's weight and description; callers `.extend()` it and add `.prefault({})`. */
const factorSchema = (w: number, description: string) =>
  z.strictObject({
    weight: weight.default(w),
    description: z.string().default(description),
  });

export const TIER_NAMES = ['primary', 'supporting', 'reference', 'history'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export const OVERFLOW_STRATEGIES = ['truncate', 'summarize', 'prioritize', 'error'] as const;
export type OverflowStrategy = (typeof OVERFLOW_STRATEGIES)[number];

export const SCORING_METHODS = ['keyword', 'semantic', 'hybrid'] as const;
export type ScoringMethod = (typeof SCORING_METHODS)[number];

export const FILE_CATEGORIES = ['source_code', 'test_code', 'requirements', 'documentation', 'config'] as const;
export type FileCategory = (typeof FILE_CATEGORIES)[number];

export const LEVELS = ['full', 'detailed', 'summary', 'stub'] as const;
export type Level = (typeof LEVELS)[number];

export const BudgetConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    total_budget: z
      .strictObject({
        /** Maximum context tokens. */
        max_tokens: nonNegInt.default(100000),
        /** Reserved for generation. */
        reserve_for_output: nonNegInt.default(8000),
        /** Reserved for system prompts. */
        reserve_for_system: nonNegInt.default(2000),
      })
      .prefault({}),
    allocation: z
      .strictObject({
        primary_context: tierSchema(50, 'Main files directly relevant to task'),
        supporting_context: tierSchema(30, 'Related files, dependencies'),
        reference_context: tierSchema(15, 'Documentation, examples'),
        history_context: tierSchema(5, 'Conversation history'),
      })
      .prefault({}),
    overflow_strategy: z.enum(OVERFLOW_STRATEGIES).default('prioritize'),
    /** Extension: budget a tier leaves unused flows to the tiers in this order. */
    flow_unused: z.boolean().default(true),
    flow_order: z.array(z.enum(TIER_NAMES)).default(['primary', 'supporting', 'reference', 'history']),
    /** Extension: budget left after allocation lifts supporting and reference files above their starting level. */
    upgrade_spare: z.boolean().default(true),
    /** Extension: `optimal` (the monotone allocation of greatest value) or `greedy` (spec's degrade loop over the ranking). */
    strategy: z.enum(['optimal', 'greedy']).default('optimal'),
    /**
     * Extension: values of the monotone allocation (summarize, prioritize): a file's value is
     * relevance x (rank + 1)^-rank_decay x level_value[level]. Fitted by `aiwg context-eval --tune`.
     */
    monotone: z
      .strictObject({
        level_value: z
          .strictObject({
            full: weight.default(1),
            detailed: weight.default(0.75),
            summary: weight.default(0.2),
            stub: weight.default(0.03),
          })
          .prefault({}),
        rank_decay: z.number().min(0).max(4).default(0.5),
      })
      .prefault({}),
  })
  .prefault({});

export const RelevanceScoringSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    scoring_method: z.enum(SCORING_METHODS).default('hybrid'),
    factors: z
      .strictObject({
        task_alignment: factorSchema(0.4, 'How directly relevant to current task').prefault({}),
        recency: factorSchema(0.2, 'Recently modified/accessed files').extend({
          decay_days: z.number().int().positive().default(7),
        }).prefault({}),
        mention_density: factorSchema(0.2, 'Number of @-mentions to this file').prefault({}),
        dependency_depth: factorSchema(0.1, 'Distance in dependency graph').extend({
          max_depth: z.number().int().min(0).default(3),
        }).prefault({}),
        file_type: factorSchema(0.1, 'Priority by file type').extend({
          priorities: z
            .strictObject({
              source_code: weight.default(1.0),
              test_code: weight.default(0.9),
              requirements: weight.default(0.8),
              documentation: weight.default(0.7),
              config: weight.default(0.6),
            })
            .prefault({}),
          /** Extension: glob -> category overrides, first match wins. */
          overrides: z
            .array(z.strictObject({ glob: z.string().min(1), category: z.enum(FILE_CATEGORIES) }))
            .default([]),
        }).prefault({}),
      })
      .prefault({}),
    /**
     * Extension: co-change evidence. A file that changed together with one of the task's
     * strongest files in the last `commits` commits rises to `share` x (how often they changed
     * together / how often the strong file changed) x its score; 0 = off. Commits touching more
     * than `max_files_per_commit` files are skipped.
     */
    co_change: z
      .strictObject({
        share: weight.default(0),
        commits: z.number().int().positive().default(300),
        max_files_per_commit: z.number().int().positive().default(30),
      })
      .prefault({}),
    thresholds: z
      .strictObject({
        include_minimum: weight.default(0.3),
        primary_threshold: weight.default(0.7),
        supporting_threshold: weight.default(0.5),
        /**
         * Extension: thresholds relative to the task's own ranking. The absolute thresholds above
         * stay a floor (a file reaching them keeps its tier); on top of them the best-ranked files
         * are primary when their task_alignment is within primary_ratio of the task's best and among the first
         * primary_top, supporting likewise, and the first include_top files within include_ratio
         * of the best are never excluded by include_minimum (the allocation then decides by budget).
         */
        relative: z
          .strictObject({
            enabled: z.boolean().default(true),
            primary_top: z.number().int().min(0).default(3),
            primary_ratio: weight.default(0.75),
            supporting_top: z.number().int().min(0).default(10),
            supporting_ratio: weight.default(0.6),
            include_top: z.number().int().min(0).default(20),
            include_ratio: weight.default(0.25),
          })
          .prefault({}),
      })
      .prefault({}),
    /** Extension: the embedding model behind semantic task alignment. */
    embedding: z
      .strictObject({
        /** A built-in model id (`aiwg/glove-100d`), a hub model id, or omitted for the default. */
        model: z.string().min(1).default('aiwg/glove-100d'),
        /** A local directory holding a transformers.js model (config.json, tokenizer.json, onnx/). */
        model_dir: z.string().min(1).optional(),
        /** Above this many chunks, search an hnswlib index instead of exact cosine. */
        ann_min_chunks: z.number().int().positive().default(20000),
        /** Max characters per chunk. */
        chunk_chars: z.number().int().positive().default(1500),
      })
      .prefault({}),
  })
  .prefault({});

const levelSchema = (description: string, tokenLimit: number, useWhen: string) =>
  z.strictObject({
    description: z.string().default(description),
    token_limit: z.number().int().min(-1).default(tokenLimit),
    use_when: z.string().default(useWhen),
  });

export const SummarizationSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    levels: z
      .strictObject({
        full: levelSchema('Complete file content', -1, 'Primary context, sufficient budget').prefault({}),
        detailed: levelSchema('Key sections with structure preserved', 2000, 'Supporting context')
          .extend({
            preserve: z
              .array(z.string())
              .default(['function signatures', 'class definitions', 'interface types', 'comments/docstrings']),
          })
          .prefault({}),
        summary: levelSchema('Paragraph summary of purpose and contents', 500, 'Reference context, budget constrained').prefault({}),
        stub: levelSchema('Existence marker with metadata', 100, 'Overflow, lowest relevance')
          .extend({
            include: z.array(z.string()).default(['file path', 'file type', 'last modified', 'line count']),
          })
          .prefault({}),
      })
      .prefault({}),
    caching: z
      .strictObject({
        enabled: z.boolean().default(true),
        cache_path: z.string().min(1).default(DEFAULT_SUMMARY_CACHE_PATH),
        invalidate_on_change: z.boolean().default(true),
        max_age_hours: z.number().int().nonnegative().default(24),
      })
      .prefault({}),
    /** Extension: optional LLM summarizer through an OpenAI-compatible endpoint; off by default. */
    llm: z
      .strictObject({
        enabled: z.boolean().default(false),
        /** An http(s) endpoint, e.g. `http://localhost:11434/v1`. */
        url: z.url({ protocol: /^https?$/ }).optional(),
        model: z.string().optional(),
        timeout_ms: z.number().int().positive().default(20000),
        /** Name of the environment variable holding the API key (never the key itself). */
        api_key_env: z.string().optional(),
      })
      .prefault({}),
  })
  .prefault({});

export const ConfigSchema = z.strictObject({
  version: z.string().regex(/^\d+\.\d+\.\d+$/, 'use a semantic version such as "1.0.0"').default('1.0.0'),
  budget_config: BudgetConfigSchema,
  relevance_scoring: RelevanceScoringSchema,
  summarization: SummarizationSchema,
  /** Extension: tokenizer every budget is counted with. */
  tokenizer: z.enum(TOKENIZER_IDS).default('o200k'),
  /** Extension: where content-addressed caches live (summaries, token counts, embeddings). */
  cache: z
    .strictObject({
      /** Shared cache directory; relative paths resolve against the root. Default: `<git common dir>/aiwg-context/` in a git repository (every worktree of it shares one), else `.aiwg/rag/`. */
      dir: z.string().min(1).optional(),
      /**
       * Redis shared by several machines for the summary, token-count and embedding caches
       * (`redis://HOST:PORT[/DB]`), under the same content-addressed keys; the disk caches stay
       * in front of it. Env AIWG_CACHE_REDIS_URL.
       */
      redis_url: z.string().min(1).optional(),
    })
    .prefault({}),
  /** Extension: where shared context between agents lives (spec 004, `aiwg shared`). */
  shared_context: z
    .strictObject({
      /**
       * `file:` (the embedded store under `<root>/.aiwg/shared`), `file:DIR` or a directory path,
       * `memory:` (this process only) or `redis://HOST:PORT[/DB]`. Env AIWG_SHARED_CONTEXT.
       */
      url: z.string().min(1).default('file:'),
      /** Workspace scope: contexts of different workspaces never see each other in one store. */
      workspace: z.string().min(1).default('default'),
      /** A context created without a TTL is gone this many hours later; 0 = never. */
      ttl_hours: z.number().nonnegative().default(2),
    })
    .prefault({}),
  /** Extension: which files are candidates. */
  collect: z
    .strictObject({
      /** Put .env files, keys and credential files into contexts. Off unless asked. */
      include_secrets: z.boolean().default(false),
      max_file_bytes: z.number().int().positive().default(1_000_000),
      /** Extra gitignore-style globs to skip. */
      ignore: z.array(z.string()).default([]),
      /** When not empty, only files matching one of these globs are candidates (`src/**`, `*.md`, `docs/`); ignore still applies. */
      include: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
});

/** The fully resolved configuration every stage receives. No stage re-defaults. */
export type Config = z.infer<typeof ConfigSchema>;
/** What a user may write: every key optional. */
export type ConfigInput = z.input<typeof ConfigSchema>;

/** The defaults, as one value. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

/** Budget percentages of a config by tier name. */
export function tierPercentages(config: Config): Record<TierName, number> {
  const a = config.budget_config.allocation;
  return {
    primary: a.primary_context.percentage,
    supporting: a.supporting_context.percentage,
    reference: a.reference_context.percentage,
    history: a.history_context.percentage,
  };
}
