/**
 * aiwg-context as a library: the pipeline, each stage, the primitives and the types.
 * Each area appends its own export lines below.
 */
export * from './types.js';
export * from './stages.js';
export * from './errors.js';
export { planBudget, type BudgetRequest } from './allocate/budget-plan.js';
export { runContextBudget, defaultDeps, type PipelineDeps, type PipelineOptions, type PipelineResult } from './pipeline.js';
export * from './config/schema.js';
export { createTokenizer, createChars4Tokenizer, TOKENIZER_IDS, isTokenizerId } from './tokenize/tokenizer.js';
export { BudgetRecordSchema, RECORD_VERSION, type BudgetRecord, type RecordFile } from './record/record-schema.js';
export { buildRecord } from './record/build-record.js';
export { resolveCacheDir, resolveSummaryCacheDir, resolveRecordsDir, resolveBudgetLogPath, resolveTokenCacheDir, resolveEmbeddingsCacheDir } from './cache/cache-dir.js';
export { createDiskCache, CACHE_FORMAT_VERSION, type DiskCacheOptions } from './cache/disk-cache.js';
export { createLayeredCache, type LayeredCacheOptions } from './cache/layered-cache.js';
export { cacheStats, pruneCache, clearCache, type CacheDirStats, type PruneResult } from './cache/cache-admin.js';
export { runMain } from './cli/main.js';
export * from './tokenize/budget.js';
export * from './tokenize/truncate.js';
export { extractDefinitions, createDefinitionExtractor, type Definition } from './summarize/syntax/definitions.js';
export { createSyntaxEngine, type SyntaxEngine } from './summarize/syntax/engine.js';
export { createLevelsStage, type LevelsStageDeps, type LevelsStageOptions } from './summarize/levels-stage.js';
export { createFileLevels, type FileLevels, type BuildFileLevels } from './summarize/file-levels.js';
export { summarizeFile, type SummarizeFileOptions, type SummarizeFileResult } from './summarize/summarize-file.js';
export { LANGUAGES, languageForPath } from './summarize/languages/index.js';
export * from './config/load.js';
export { parseConfigStrict, crossFieldProblems, knownKeysAt, closestKey, SUM_TOLERANCE, type CrossFieldProblem } from './config/validate.js';
export { assembleWorkingSet, type AssemblyResult, type AssemblyReport, type IncludedFile, type WorkingSetContext, type WorkingSetDeps } from './manifest/working-set/assemble.js';
export {
  WorkingSetSchema,
  WorkingSetFileSchema,
  WORKING_SET_PROTOCOL,
  WORKING_SET_ROLES,
  INSTRUCTION_ROLES,
  parseWorkingSet,
  validateWorkingSet,
  defaultTruncateStrategy,
  workingSetJsonSchema,
  type WorkingSet,
  type WorkingSetFile,
  type WorkingSetInput,
  type WorkingSetRole,
} from './manifest/working-set/schema.js';
export { formatAssemblyReport, assemblyEvent, type AssemblyEvent } from './manifest/working-set/report.js';
export { applyWorkingSetUpdate, type WorkingSetUpdate, type WorkingSetEvent, type WorkingSetAction, type WorkingSetActor } from './manifest/working-set/update.js';
export { planRefresh, readRecordUsage, recordUsageOf, REFRESH_STEP, type RecordUsage, type PriorityChange, type RefreshOptions } from './manifest/working-set/refresh.js';
export { loadWorkingSet, resolveWorkingSetPath, resolveWorkingSetEventsPath, updateWorkingSetFile, DEFAULT_WORKING_SET_PATHS } from './manifest/working-set/manifest-file.js';
export { createLevelsPort } from './manifest/working-set/levels-port.js';
export type { LevelsPort, TruncatePort } from './manifest/working-set/fit-file.js';
export { createRootReader, locateInRoot, manifestPathProblem, normalizeManifestPath, toRootRelative, type ReadManifestFile, type RootReadResult } from './manifest/paths.js';
export { createJsonlAppender, type AppendJsonLine } from './manifest/fs-io.js';
export {
  DEFAULT_MANIFESTS,
  DEFAULT_NARRATIVE_CAP,
  HANDOFF_FIELDS,
  PHASE_NAMES,
  PHASE_MANIFESTS_FILE,
  resolveManifest,
  permissiveManifest,
  parsePhaseManifestOverrides,
  loadPhaseManifestOverrides,
  type PhaseManifest,
  type PhaseHandoff,
  type PhaseManifestOverride,
  type HandoffField,
} from './manifest/handoff/manifests.js';
export { buildHandoffContext, selectHandoffFields, assembleHandoffText, narrativeCapFor, capNarrative, type HandoffContextDeps, type HandoffContextResult } from './manifest/handoff/build-context.js';
export { readPriorHandoffs, parseHandoff, HANDOFF_FILE_PATTERN } from './manifest/handoff/read-handoffs.js';
export { mineCommits, classifyCommit, parseGitLog, taskText, SKIP_REASONS, type EvalInstance, type RawCommit, type ChangedFile, type SkipReason, type MineOptions, type MineResult } from './eval/mine-commits.js';
export { runEval, runConfig, BASELINE_METHOD, type EvalOptions, type EvalDeps, type EvalReport, type EvalRun, type EvalMethod } from './eval/run-eval.js';
export { instanceMetrics, summarize as summarizeEvalRuns, placementsFromRecord, type RunOutcome, type InstanceMetrics, type MethodSummary, type Placement } from './eval/metrics.js';
export { bm25Rank, packInRankOrder, runBaseline, loadBaselineDocs, createBaselineCache, type BaselineDoc, type BaselineRun } from './eval/bm25-baseline.js';
export { withWorktree } from './eval/worktree.js';
export { renderEvalReport } from './eval/render-eval.js';
export { allocateContext } from './allocate/allocate-context.js';
export { assignTiers, tierOf, startingLevels, CALIBRATION_MIN_ALIGNMENT, FILE_TIERS, type FileTier, type TieredFile, type Tiering, type TierVerdict } from './allocate/tiers.js';
export { buildTaskFacts, requireTask, type TaskFacts } from './scoring/task-facts.js';
export { buildCandidate, levelOption, optionValue, LEVEL_USEFULNESS, type Candidate, type LevelOption } from './allocate/candidates.js';
export { planTierBudgets, type TierBudgetInput, type TierBudgets } from './allocate/budgets.js';
export { degradeGreedy, prioritizeGreedy } from './allocate/degrade-greedy.js';
export { solveMultipleChoiceKnapsack, upperHull, choiceValue, choiceCost, type KnapsackItem, type KnapsackOption, type Choice } from './allocate/optimise.js';
export { allocateFileTier, solveKnapsack, totalValue, type TierRequest, type TierOutcome, type LevelAlgorithm } from './allocate/overflow.js';
export { fitRender, fitWhole, shrinkRanked, type FitInput, type FitResult, type FitWholeInput, type Repairable, type RepairMode, type HeaderMode, type Placement as AllocationPlacement } from './allocate/fit-render.js';
export { cutToFit, isSignificantCut, SIGNIFICANT_CUT_SHARE, type CutToFitOptions } from './allocate/cut-to-fit.js';
export { renderFileBlock, renderMessageBlock, renderDocument, renderHeader, blockCost, structureCost } from './assemble/render.js';
export { OUTPUT_FORMATS, getOutputFormat, type OutputFormat, type FileBlockInput, type MessageBlockInput, type RenderedSection } from './assemble/formats/index.js';
export { headerLines, worstCaseHeader, workingSetHeaderLines, type BootHeader, type WorkingSetHeader } from './assemble/boot-header.js';
export { parseHistory } from './assemble/history.js';
export { selectHistoryWindow, groupMessages, TOOL_OUTPUT_MAX_TOKENS, type HistoryItem, type HistoryWindow } from './assemble/history-window.js';
export { locateJsonError } from './assemble/json-locate.js';
export { createCollectStage } from './collect/collect-files.js';
export { defaultCollectPorts, nodeFs, execGit, GitCommandError, type CollectPorts, type CollectFs, type GitPort, type FileInfo, type DirEntry } from './collect/collect-ports.js';
export { IgnoreMatcher, parseIgnoreFile } from './collect/ignore-rules.js';
export { PATH_RULES, CONTENT_RULES, EXCLUDED_DIRS, type PathRule, type ContentRule } from './collect/exclusion-rules.js';
export { writeRecord, logLine, recordFileName } from './record/write-record.js';
export { appendBudgetLog, budgetLogLine, type BudgetLogLine } from './record/budget-log.js';
export { readRecords, type ReadRecordsOptions, type ReadRecordsResult } from './record/read-records.js';
export { buildReport, type ContextReport, type RunReport, type FileTrend, type Advice, type AdviceKind } from './record/report.js';
export { renderReport } from './record/render-report.js';
export { renderBudgetRecordJsonSchema } from './record/record-json-schema.js';
export { createScoreStage, composite, compareScored, NEUTRAL_FACTOR, type ScoreStageOptions, type ScoreStageDeps } from './scoring/score-files.js';
export {
  defaultSignals,
  createTaskAlignmentSignal,
  recencySignal,
  mentionDensitySignal,
  dependencyDepthSignal,
  fileTypeSignal,
  seedFiles,
  RECENCY_FLOOR,
  MENTION_FLOOR,
  type SemanticOutcome,
  type TaskAlignmentOptions,
} from './scoring/signals/index.js';
export { scoreBm25, type Bm25Document, type Bm25Options, type Bm25Result } from './scoring/bm25.js';
export { extractTerms, splitIdentifier, pathTerms, stem } from './scoring/terms.js';
export { classifyPath, classifyFiles, createClassifier } from './scoring/classify.js';
export { globToRegExp, createGlobMatcher } from './util/glob.js';
export { keywordAlignment, calibrateSemantic, fuseAlignment, shapeAlignment, promoteNamed } from './scoring/alignment.js';
export { buildImportGraph, distancesFrom, LANGUAGES as IMPORT_LANGUAGES, type ImportGraph, type LanguageSupport as ImportLanguageSupport } from './scoring/import-graph/index.js';
export { explainScore, renderExplanation, type ScoreExplanation, type FactorExplanation } from './scoring/explain.js';
export { scoreOneFile, type ScoreOneFileOptions, type ScoreOneFileResult } from './context-score.js';
export { defaultEmbedderFactory, bindSemanticAlignment, type EmbedderFactory, type SemanticAlignment, type SemanticScores } from './scoring/semantic-adapter.js';
export { createEmbedder, loadTransformersEmbedder, EMBED_BATCH_SIZE, type CreateEmbedderOptions, type TransformersEmbedderOptions } from './scoring/semantic/embedder.js';
export { semanticAlignment, fileSimilarity, type SemanticAlignmentDeps, type SemanticAlignmentResult } from './scoring/semantic/semantic-alignment.js';
export { buildStaticEmbeddingModel, zipfWeight, TOKENIZER_RULES, STATIC_MODEL_FORMAT, type StaticModelSpec, type StaticModelInfo } from './scoring/semantic/static-model-builder.js';
export { ensureGloveModel, gloveModelDir, isBuiltModelDir, GLOVE_MODEL_ID, GLOVE_MODEL_VERSION, GLOVE_MAX_WORDS, CODE_KEYWORDS } from './scoring/semantic/glove-model.js';
export { chunkFile, chunkByLines, chunkByDefinitions, CHUNKER_VERSION, MAX_CHUNKS_PER_FILE, type Chunk, type DefinitionsExtractor } from './scoring/semantic/chunker.js';
export { openEmbeddingStore, embeddingStoreDir, modelSlug, EMBEDDING_FORMAT_VERSION, type EmbeddingStore } from './scoring/semantic/embedding-store.js';
export { annSearch, ANN_FORMAT_VERSION, type AnnQuery, type AnnResult } from './scoring/semantic/ann-index.js';
export { fileBlockCost } from './assemble/block-cost.js';
export * from './provider/index.js';
export { createRepoIndex, type RepoIndex, type RepoIndexOptions, type RepoIndexQuery } from './repo-index/repo-index.js';
