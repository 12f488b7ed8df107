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
  /** A shared context id: its entries are placed in the context within the budget (needs an adapter with a SharedContextPort). */
  mission?: string;
  /** The asking agent: the mission's entries plus this agent's own scope. */
  agent?: string;
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
  /**
   * Scope: the entry belongs to this agent's scope inside the mission, and only queries by the
   * same agent see it. Mission scope (every agent sees it) when absent. A key is unique per scope.
   */
  agent?: string;
  /**
   * Optimistic concurrency: apply only if the key's current entry (in its scope) has this
   * sequence, 0 = the key must be new; otherwise `SharedContextConflictError` and nothing is written.
   */
  expectSequence?: number;
}

export interface CreateSharedContextOptions {
  /** Replace an existing context of the same id instead of failing. */
  replace?: boolean;
  /** The context (and everything in it) is gone this many ms after creation; 0 = never. The adapter's default when absent. */
  ttlMs?: number;
}

export interface SharedQueryOptions {
  /** Most hits returned; 10 when absent. */
  limit?: number;
  /** The asking agent: sees mission entries and its own; mission entries only when absent. */
  agent?: string;
}

/** An entry as a reader sees it. */
export interface SharedEntry {
  key: string;
  content: string;
  /** Strength after decay at read time. */
  strength: number;
  /** Position in the operation order: later injections have higher sequence numbers. */
  sequence: number;
  /** Set for entries in an agent's scope. */
  agent?: string;
}

/** A ranked answer of `query`. */
export interface SharedContextHit extends SharedEntry {
  /** BM25 relevance x effective strength. */
  score: number;
}

/**
 * Secondary port (spec 3.2/3.3): mission-level shared context. Operations are applied in call
 * order; inject is not commutative (spec 2, unified field theory), so there is no batch write.
 * The workspace scope is the adapter's (one workspace per store prefix or directory); the
 * mission is the context id; an agent scope lives inside a mission.
 */
export interface SharedContextPort {
  createContext(id: string, options?: CreateSharedContextOptions): Promise<void>;
  /** Returns the entry's sequence number in the context. */
  inject(id: string, injection: SharedInjection): Promise<number>;
  query(id: string, text: string, options?: SharedQueryOptions): Promise<SharedContextHit[]>;
  /** Every entry the asker may see, in operation order (what the provider places in a context). */
  entries(id: string, options?: Pick<SharedQueryOptions, 'agent'>): Promise<SharedEntry[]>;
  destroy(id: string): Promise<void>;
  /** Release connections and handles; the port is unusable afterwards. */
  close(): Promise<void>;
}
