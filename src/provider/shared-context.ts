import { AiwgError, UsageError } from '../errors.js';
import { scoreBm25 } from '../scoring/bm25.js';
import type { CreateSharedContextOptions, SharedContextHit, SharedContextPort, SharedInjection, SharedQueryOptions } from './ports.js';

/** An operation named a shared context that does not exist (never created, or destroyed). */
export class UnknownSharedContextError extends AiwgError {
  readonly contextId: string;

  constructor(contextId: string) {
    super('E_SHARED_CONTEXT', `shared context "${contextId}" does not exist: call createContext("${contextId}") first (it may have been destroyed)`, {
      exitCode: 2,
    });
    this.name = 'UnknownSharedContextError';
    this.contextId = contextId;
  }
}

/** Exponential decay S(t) = S0 * 2^(-t / halfLife) (spec 2, persistence and resonance). */
export interface SharedDecayOptions {
  halfLifeMs: number;
  /** Entries whose decayed strength falls below this are forgotten. 0 (keep all) when absent. */
  minStrength?: number;
}

export interface InMemorySharedContextOptions {
  /** Injected clock, epoch ms; used only by decay. */
  now?: () => number;
  /** No decay when absent: strength stays as injected. */
  decay?: SharedDecayOptions;
}

export const DEFAULT_QUERY_LIMIT = 10;

interface Entry {
  key: string;
  content: string;
  strength: number;
  sequence: number;
  injectedAtMs: number;
}

interface Space {
  /** Insertion order; a key appears at most once (its latest injection). */
  entries: Entry[];
  nextSequence: number;
}

/**
 * The in-memory shared context adapter. State lives in the returned object, never in the module.
 * inject keeps operation order: a later injection of a key replaces the earlier one and moves to
 * the end. query ranks by BM25 over key and content, times the (decayed) strength; ties keep
 * operation order.
 */
export function createInMemorySharedContext(options: InMemorySharedContextOptions = {}): SharedContextPort {
  const now = options.now ?? (() => Date.now());
  const decay = options.decay;
  if (decay !== undefined && !(Number.isFinite(decay.halfLifeMs) && decay.halfLifeMs > 0)) {
    throw new UsageError(`shared context decay.halfLifeMs must be a positive number of milliseconds, got ${String(decay.halfLifeMs)}`);
  }
  const spaces = new Map<string, Space>();
  const space = (id: string): Space => {
    const found = spaces.get(id);
    if (found === undefined) throw new UnknownSharedContextError(id);
    return found;
  };
  const strengthAt = (entry: Entry, atMs: number): number =>
    decay === undefined ? entry.strength : entry.strength * 2 ** (-Math.max(0, atMs - entry.injectedAtMs) / decay.halfLifeMs);

  return {
    async createContext(id: string, create: CreateSharedContextOptions = {}): Promise<void> {
      if (typeof id !== 'string' || id === '') throw new UsageError('createContext: the id must be a non-empty string');
      if (spaces.has(id) && create.replace !== true) {
        throw new UsageError(`createContext: shared context "${id}" already exists: destroy it first or pass { replace: true }`);
      }
      spaces.set(id, { entries: [], nextSequence: 1 });
    },

    async inject(id: string, injection: SharedInjection): Promise<void> {
      const target = space(id);
      const strength = injection.strength ?? 1;
      if (!Number.isFinite(strength) || strength < 0) {
        throw new UsageError(`inject: strength of "${injection.key}" must be a finite number >= 0, got ${String(strength)}`);
      }
      if (typeof injection.key !== 'string' || injection.key === '') throw new UsageError('inject: the key must be a non-empty string');
      target.entries = target.entries.filter((e) => e.key !== injection.key);
      target.entries.push({ key: injection.key, content: injection.content, strength, sequence: target.nextSequence++, injectedAtMs: now() });
    },

    async query(id: string, text: string, query: SharedQueryOptions = {}): Promise<SharedContextHit[]> {
      const target = space(id);
      const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
      if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`query: limit must be a positive integer, got ${String(limit)}`);
      const atMs = now();
      if (decay?.minStrength !== undefined) {
        const floor = decay.minStrength;
        target.entries = target.entries.filter((e) => strengthAt(e, atMs) >= floor);
      }
      // Keys are unique within a space, so they serve as BM25 document ids; path weight 1
      // because a key is a label, not a file path whose name is a strong hint.
      const { scores } = scoreBm25(target.entries.map((e) => ({ path: e.key, content: e.content })), text, { pathWeight: 1 });
      const hits: SharedContextHit[] = [];
      for (const entry of target.entries) {
        const relevance = scores.get(entry.key);
        if (relevance === undefined) continue;
        const strength = strengthAt(entry, atMs);
        const score = relevance * strength;
        if (score > 0) hits.push({ key: entry.key, content: entry.content, score, strength, sequence: entry.sequence });
      }
      hits.sort((a, b) => b.score - a.score || a.sequence - b.sequence);
      return hits.slice(0, limit);
    },

    async destroy(id: string): Promise<void> {
      space(id);
      spaces.delete(id);
    },
  };
}
