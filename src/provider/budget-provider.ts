import type { Config } from '../config/schema.js';
import type { RenderFormat } from '../stages.js';
import type { Reporter } from '../types.js';
import type { PipelineDeps } from '../pipeline.js';
import type { BudgetRecord } from '../record/record-schema.js';
import type { ContextMode } from './modes/index.js';
import type { AgentContext, ContextMetadata, ContextProvider, ContextRequest, SharedContextPort } from './ports.js';
import { missionBlock, withMissionBlock } from './shared-injection.js';
import { createTokenizer } from '../tokenize/tokenizer.js';
import { checkRequest } from './request.js';
import { runContextQuery } from './context-query.js';

export interface BudgetContextProviderOptions {
  /** Repository root the engine reads; nothing outside it is read. */
  root: string;
  /** The fully resolved config (e.g. from `loadConfig`); modes adjust only its tier percentages. */
  config: Config;
  /** Stage and port overrides for `runContextBudget` (tests, custom embedders). */
  deps?: Partial<PipelineDeps>;
  /** Write the budget record and log line under `<root>/.aiwg/rag/` after each call. Off by default. */
  record?: boolean;
  /** Mode registry; the built-in task/review/chat modes when absent. */
  modes?: readonly ContextMode[];
  format?: RenderFormat;
  reporter?: Reporter;
  /** Where a request's `mission` is read from (spec 004 §4.3); requests naming a mission need it. */
  shared?: SharedContextPort;
  /** Most of the context, as a fraction, the mission's entries may take; 0.2 when absent. */
  sharedShare?: number;
}

/**
 * The default adapter (spec 4.1): the whole engine behind the port. `maxTokens` is the most
 * tokens the returned context may hold, so the engine's `available` equals it (the configured
 * reserves are added on top to form max_tokens).
 */
export function createBudgetContextProvider(options: BudgetContextProviderOptions): ContextProvider {
  return {
    async buildContext(request: ContextRequest): Promise<AgentContext> {
      const maxTokens = checkRequest(request);
      const total = maxTokens ?? availableOf(options.config);
      const tokenizer = request.mission === undefined ? undefined : await createTokenizer(options.config.tokenizer);
      const block = tokenizer === undefined ? undefined : await missionBlock(request, { ...options, total, tokenizer });
      const { mission: _mission, agent: _agent, ...query } = request;
      // The files get what the shared entries leave (the separator included): the whole stays within maxTokens.
      const filesMax = block === undefined ? maxTokens : total - block.cost;
      const answer = await runContextQuery({ format: options.format, ...query, maxTokens: filesMax }, { ...options, record: options.record === true });
      const metadata = recordMetadata(answer.record, answer.mode);
      if (block === undefined || tokenizer === undefined) return { mode: answer.mode, context: answer.context, metadata };
      return { mode: answer.mode, ...withMissionBlock(block, { context: answer.context, metadata }, { total, tokenizer }) };
    },
  };
}

/** The port's metadata from a budget record: scalars only. */
export function recordMetadata(record: BudgetRecord, mode: string): ContextMetadata {
  const { primary, supporting, reference, history } = record.allocation;
  return {
    context_tokens_used: record.metrics.rendered_tokens,
    sections_trimmed: record.overflow.files_affected.length,
    files_included: primary.files.length + supporting.files.length + reference.files.length,
    available_tokens: record.available,
    run_id: record.run_id,
    scoring_method: record.scoring.method,
    embedding_model: record.scoring.embedding_model ?? '',
    mode,
    tokenizer: record.tokenizer,
    history_tokens: history.total_tokens,
    overflow_occurred: record.overflow.occurred,
    utilization: record.metrics.utilization,
  };
}

/** The configured budget's available tokens (max - reserves). */
function availableOf(config: Config): number {
  const t = config.budget_config.total_budget;
  return t.max_tokens - t.reserve_for_output - t.reserve_for_system;
}
