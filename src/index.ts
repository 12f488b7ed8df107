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
