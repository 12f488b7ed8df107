import type { HistoryMessage } from '../stages.js';

/**
 * The two ports of spec 004 (PRD-107 "Context Interface Abstraction"): what an agent framework
 * (the coordinator) needs from the context layer, with nothing about how it is fulfilled.
 * Adapters live next to this file; callers import only these types and a factory.
 */

/** Metadata values are scalars only (spec 004 risk 2): no backend object may leak through. */
export type MetadataValue = string | number | boolean;

/**
 * Keys every adapter reports, so telemetry (PRD-106) reads the same fields whichever backend ran.
 * Adapters may add more scalar keys.
 */
export interface ContextMetadata extends Record<string, MetadataValue> {
  /** Tokens of the returned `context` under the adapter's tokenizer. */
  context_tokens_used: number;
  /** Files (or sections) the overflow strategy degraded or dropped. */
  sections_trimmed: number;
  /** Files (or sections) present in the context. */
  files_included: number;
  /** The most tokens the context was allowed to hold. */
  available_tokens: number;
  run_id: string;
  scoring_method: string;
  /** Embedding model id, '' when none ran. */
  embedding_model: string;
}

/** One call of the core port. Callers pick a mode and a task, never sections or tier budgets (spec 3.4). */
export interface ContextRequest {
  /** A mode name from the adapter's registry, e.g. `task`, `review`, `chat`. */
  mode: string;
  task: string;
  history?: HistoryMessage[];
  /** The most tokens the returned context may hold; the adapter's configured budget when absent. */
  maxTokens?: number;
}

/** What the coordinator gets back: immutable text plus scalar metadata. */
export interface AgentContext {
  mode: string;
  context: string;
  metadata: ContextMetadata;
}

/** Core port (spec 3.1): per-agent, per-call context. Async only (spec Q6). */
export interface ContextProvider {
  buildContext(request: ContextRequest): Promise<AgentContext>;
}

/** One finding shared between the agents of a mission (spec 3.2). */
export interface SharedInjection {
  key: string;
  content: string;
  /** Multiplier on the entry's relevance; 1 when absent. Must be finite and >= 0. */
  strength?: number;
}

export interface CreateSharedContextOptions {
  /** Replace an existing context of the same id instead of failing. */
  replace?: boolean;
}

export interface SharedQueryOptions {
  /** Most hits returned; 10 when absent. */
  limit?: number;
}

/** A ranked answer of `query`. */
export interface SharedContextHit {
  key: string;
  content: string;
  /** BM25 relevance x effective strength. */
  score: number;
  /** Strength after decay at query time. */
  strength: number;
  /** Position in the operation order: later injections have higher sequence numbers. */
  sequence: number;
}

/**
 * Secondary port (spec 3.2/3.3): mission-level shared context. Operations are applied in call
 * order; inject is not commutative (spec 2, unified field theory), so there is no batch write.
 */
export interface SharedContextPort {
  createContext(id: string, options?: CreateSharedContextOptions): Promise<void>;
  inject(id: string, injection: SharedInjection): Promise<void>;
  query(id: string, text: string, options?: SharedQueryOptions): Promise<SharedContextHit[]>;
  destroy(id: string): Promise<void>;
}
