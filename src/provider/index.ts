export type {
  AgentContext,
  ContextMetadata,
  ContextProvider,
  ContextRequest,
  CreateSharedContextOptions,
  MetadataValue,
  SharedContextHit,
  SharedContextPort,
  SharedEntry,
  SharedInjection,
  SharedQueryOptions,
} from './ports.js';
export { CONTEXT_MODES, DEFAULT_CONTEXT_MODE, resolveMode, applyMode, shiftPercentages, type ContextMode, type TierPercentages } from './modes/index.js';
export { createBudgetContextProvider, recordMetadata, type BudgetContextProviderOptions } from './budget-provider.js';
export { createInMemoryContextProvider, DEFAULT_MEMORY_MAX_TOKENS, type ContextSection, type InMemoryContextProviderOptions } from './memory-provider.js';
export {
  createInMemorySharedContext,
  UnknownSharedContextError,
  SharedContextConflictError,
  DEFAULT_QUERY_LIMIT,
  type InMemorySharedContextOptions,
  type SharedContextOptions,
  type SharedDecayOptions,
} from './shared-context.js';
export { createFileSharedContext, type FileSharedContextOptions } from './shared-file.js';
export { createRedisSharedContext, type RedisSharedContextOptions } from './shared-redis.js';
export { createSharedContext, parseSharedLocation, type SharedContextFromConfigOptions, type SharedStoreLocation } from './shared-factory.js';
export { withBudgetGuard, type BudgetGuardOptions } from './budget-guard.js';
export { createContextProvider, CONTEXT_ADAPTERS, type ContextProviderConfig, type ContextAdapterName } from './factory.js';
export type { ContextQuery, ContextAnswer, IncludedFile, LevelStrategy } from './context-query.js';
export { openRepoProvider, type RepoProvider, type RepoProviderOptions, type RepoQuery } from './repo-provider.js';
