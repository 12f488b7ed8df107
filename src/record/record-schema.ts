import { z } from 'zod';
import { AiwgError } from '../errors.js';
import { FACTOR_NAMES } from '../types.js';
import { LEVELS, OVERFLOW_STRATEGIES, SCORING_METHODS, TIER_NAMES, type TierName } from '../config/schema.js';
import { TOKENIZER_IDS } from '../tokenize/tokenizer.js';

/**
 * The context budget record (spec 003 `context_budget_record`), extended with what an audit
 * needs. This shape is a contract other tools parse: schemas/budget-record.schema.json is
 * generated from it (`z.toJSONSchema`) and a test fails when the file drifts.
 */
export const RECORD_VERSION = '1.0.0';

const factorValues = z.strictObject(
  Object.fromEntries(FACTOR_NAMES.map((name) => [name, z.number().min(0).max(1)])) as Record<
    (typeof FACTOR_NAMES)[number],
    z.ZodNumber
  >,
);

export const RecordFileSchema = z.strictObject({
  /** Root-relative path with `/` separators. */
  path: z.string(),
  tokens: z.number().int().nonnegative(),
  level: z.enum(LEVELS),
  relevance_score: z.number().min(0).max(1),
  factors: factorValues,
  truncated: z.boolean().optional(),
  /** Why the file got its level (src/record/level-reason.ts); absent in records written before it was kept. */
  level_reason: z.string().optional(),
});

export const RecordTierSchema = z.strictObject({
  budget: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  files: z.array(RecordFileSchema),
});

const TierShareSchema = z.strictObject({ percent: z.number().min(0).max(100), tokens: z.number().int().nonnegative() });

export const BudgetRecordSchema = z.strictObject({
  version: z.literal(RECORD_VERSION),
  run_id: z.string(),
  timestamp: z.string().datetime(),
  task: z.string(),
  root: z.string(),
  tokenizer: z.enum(TOKENIZER_IDS),
  total_budget: z.number().int().nonnegative(),
  reserved: z.strictObject({ output: z.number().int().nonnegative(), system: z.number().int().nonnegative() }),
  available: z.number().int().nonnegative(),
  /**
   * The run's budget plan: each tier's nominal share of `available` (percent and tokens) before
   * unused budget flows, and whether the budget was one pool (budget_config.enabled false).
   * Reports render from it. Absent in records written before it existed.
   */
  budget_plan: z
    .strictObject({
      one_pool: z.boolean(),
      tiers: z.strictObject(
        Object.fromEntries(TIER_NAMES.map((tier) => [tier, TierShareSchema])) as Record<TierName, typeof TierShareSchema>,
      ),
    })
    .optional(),
  allocation: z.strictObject({
    primary: RecordTierSchema,
    supporting: RecordTierSchema,
    reference: RecordTierSchema,
    history: RecordTierSchema,
  }),
  excluded: z.array(
    z.strictObject({ path: z.string(), relevance_score: z.number().min(0).max(1).nullable(), reason: z.string() }),
  ),
  overflow: z.strictObject({
    occurred: z.boolean(),
    strategy_applied: z.enum(OVERFLOW_STRATEGIES).nullable(),
    files_affected: z.array(z.string()),
  }),
  metrics: z.strictObject({
    /** Tokens used / available. */
    utilization: z.number().min(0),
    /** Relevance-weighted tokens / tokens used: how much of the context is relevant content. */
    efficiency: z.number().min(0).max(1),
    /** Tokens of the rendered context (header and wrappers included), by the record's tokenizer. */
    rendered_tokens: z.number().int().nonnegative(),
    /** Tokens the relevant files would need at their starting levels, before any degradation. */
    requested_tokens: z.number().int().nonnegative(),
  }),
  scoring: z.strictObject({
    method: z.enum(SCORING_METHODS),
    /** Embedding model id, or null when no embedder ran (keyword scoring or model unavailable). */
    embedding_model: z.string().nullable(),
    weights: factorValues,
  }),
  warnings: z.array(z.string()),
  timings_ms: z.record(z.string(), z.number().nonnegative()),
  tool_version: z.string(),
  /** sha256 of the resolved config, canonical JSON. */
  config_hash: z.string(),
});

export type BudgetRecord = z.infer<typeof BudgetRecordSchema>;
export type RecordFile = z.infer<typeof RecordFileSchema>;

/**
 * The record checked against BudgetRecordSchema, or an E_RECORD error (a bug: exit 1). The
 * CLI calls this before it writes anything (output included), so an invalid record leaves
 * nothing on disk.
 */
export function validateRecord(record: BudgetRecord): BudgetRecord {
  const parsed = BudgetRecordSchema.safeParse(record);
  if (!parsed.success) {
    throw new AiwgError(
      'E_RECORD',
      `budget record does not match schemas/budget-record.schema.json at ${describeSchemaError(parsed.error)}; nothing was written`,
      { exitCode: 1, cause: parsed.error },
    );
  }
  return parsed.data;
}

/** `key.path: message` of the first zod issue (records are machine-written: one is enough to locate the bug). */
export function describeSchemaError(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(record)';
  return `${where}: ${issue?.message ?? 'invalid'}`;
}
