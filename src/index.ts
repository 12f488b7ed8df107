/**
 * aiwg-context as a library: the handful of names an agent framework needs (docs/library.md
 * lists them, and a test keeps the two equal). Everything else is internal: tests and the
 * modules import it from its own file. Add a name here only when a framework needs it.
 */

// The pipeline and the engine every front end feeds.
export { runContextBudget, type PipelineOptions, type PipelineResult, type PipelineDeps } from './pipeline.js';
export { planBudget } from './allocate/budget-plan.js';
export { fitRender } from './allocate/fit-render.js';
export type { BudgetPlan } from './stages.js';

// Configuration.
export { loadConfig } from './config/load.js';
export { ConfigSchema, type Config } from './config/schema.js';
export { createTokenizer } from './tokenize/tokenizer.js';
export type { Tokenizer } from './tokenize/tokenizer.js';
export type { Reporter } from './types.js';

// Ports and their adapters (spec 004).
export { openRepoProvider, type RepoProvider, type RepoQuery } from './provider/repo-provider.js';
export { createContextProvider } from './provider/factory.js';
export { withBudgetGuard } from './provider/budget-guard.js';
export { CONTEXT_MODES } from './provider/modes/index.js';
export type { ContextProvider, ContextRequest, AgentContext, SharedContextPort, SharedEntry } from './provider/ports.js';
export { createSharedContext } from './provider/shared-factory.js';
export { createInMemorySharedContext, UnknownSharedContextError, SharedContextConflictError } from './provider/shared-context.js';
export { createFileSharedContext } from './provider/shared-file.js';
export { createRedisSharedContext } from './provider/shared-redis.js';
export { createAiwgMcpServer } from './mcp/server.js';

// The other front ends: conversations (spec 002), working sets (spec 001), phase handoffs (spec 000).
export { buildConversation, type BuiltConversation } from './conversation/build.js';
export { runConversationBuild } from './conversation/run.js';
export type { Session } from './conversation/session.js';
export { assembleWorkingSetFile } from './manifest/working-set/assemble-file.js';
export { buildPhaseContext } from './manifest/handoff/phase-context.js';

// Records and errors.
export { BudgetRecordSchema, type BudgetRecord } from './record/record-schema.js';
export { writeRecord } from './record/write-record.js';
export { readRecords } from './record/read-records.js';
export { AiwgError, UsageError, ConfigError, InputError, BudgetExceededError } from './errors.js';
