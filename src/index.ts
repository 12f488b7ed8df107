/**
 * aiwg-context as a library: the pipeline, each stage, the primitives and the types.
 * Each area appends its own export lines below.
 */
export * from './types.js';
export * from './stages.js';
export * from './errors.js';
export { runContextBudget, planBudget, defaultDeps, type PipelineDeps, type PipelineOptions, type PipelineResult } from './pipeline.js';
export * from './config/schema.js';
export { createTokenizer, createChars4Tokenizer, TOKENIZER_IDS, isTokenizerId } from './tokenize/tokenizer.js';
export { BudgetRecordSchema, RECORD_VERSION, type BudgetRecord, type RecordFile } from './record/record-schema.js';
export { buildRecord } from './record/build-record.js';
export { resolveCacheDir, resolveSummaryCacheDir, resolveRecordsDir, resolveBudgetLogPath } from './cache/cache-dir.js';
export { runMain } from './cli/main.js';
export * from './tokenize/budget.js';
export * from './tokenize/truncate.js';
export { extractDefinitions, createDefinitionExtractor, type Definition } from './summarize/syntax/definitions.js';
export { createSyntaxEngine, type SyntaxEngine } from './summarize/syntax/engine.js';
export * from './config/load.js';
export { parseConfigStrict, crossFieldProblems, knownKeysAt, closestKey, SUM_TOLERANCE, type CrossFieldProblem } from './config/validate.js';
export { mineCommits, classifyCommit, parseGitLog, taskText, SKIP_REASONS, type EvalInstance, type RawCommit, type ChangedFile, type SkipReason, type MineOptions, type MineResult } from './eval/mine-commits.js';
export { runEval, runConfig, BASELINE_METHOD, type EvalOptions, type EvalDeps, type EvalReport, type EvalRun, type EvalMethod } from './eval/run-eval.js';
export { instanceMetrics, summarize as summarizeEvalRuns, placementsFromRecord, type RunOutcome, type InstanceMetrics, type MethodSummary, type Placement } from './eval/metrics.js';
export { bm25Rank, packInRankOrder, runBaseline, loadBaselineDocs, createBaselineCache, type BaselineDoc, type BaselineRun } from './eval/bm25-baseline.js';
export { withWorktree } from './eval/worktree.js';
export { renderEvalReport } from './eval/render-eval.js';
