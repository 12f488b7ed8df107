import { AiwgError, UsageError } from '../errors.js';
import { scoreBm25 } from '../scoring/bm25.js';
import type { CreateSharedContextOptions, SharedContextHit, SharedContextPort, SharedEntry, SharedInjection, SharedQueryOptions } from './ports.js';

/**
 * What every shared context adapter has in common, in one place: argument checks, the error
 * types, the operation log and its fold (the in-memory and embedded adapters store the log
 * itself; Redis stores the folded entries), and the ranking of `query`. Pure: no I/O, no clock.
 */

/** An operation named a shared context that does not exist (never created, destroyed or expired). */
export class UnknownSharedContextError extends AiwgError {
  readonly contextId: string;

  constructor(contextId: string) {
    super('E_SHARED_CONTEXT', `shared context "${contextId}" does not exist: call createContext("${contextId}") first (it may have been destroyed or expired)`, {
      exitCode: 2,
    });
    this.name = 'UnknownSharedContextError';
    this.contextId = contextId;
  }
}

/** A conditional inject lost a race: the key's current sequence is not the one expected. */
export class SharedContextConflictError extends AiwgError {
  readonly actualSequence: number;

  constructor(contextId: string, key: string, expected: number, actual: number) {
    super(
      'E_SHARED_CONFLICT',
      `shared context "${contextId}": key "${key}" is at sequence ${actual}, not the expected ${expected}: another writer changed it; query again and retry`,
      { exitCode: 1 },
    );
    this.name = 'SharedContextConflictError';
    this.actualSequence = actual;
  }
}

/** The store behind a shared context cannot be reached or written (Redis down, disk full). */
export class SharedStoreError extends AiwgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_SHARED_STORE', message, { exitCode: 2, ...options });
    this.name = 'SharedStoreError';
  }
}

/** Exponential decay S(t) = S0 * 2^(-t / halfLife) (spec 2, persistence and resonance). */
export interface SharedDecayOptions {
  halfLifeMs: number;
  /** Entries whose decayed strength falls below this are forgotten. 0 (keep all) when absent. */
  minStrength?: number;
}

export const DEFAULT_QUERY_LIMIT = 10;
/** Largest content of one entry: one log line must stay one small atomic append. */
export const MAX_ENTRY_BYTES = 256 * 1024;

/** An entry as stored: what `SharedEntry` reports, before decay. */
export interface StoredEntry {
  key: string;
  agent?: string;
  content: string;
  /** Strength as injected. */
  strength: number;
  sequence: number;
  injectedAtMs: number;
}

/** One line of the operation log; `nonce` lets a writer find the fate of its own record. */
export type SharedRecord =
  | { op: 'create'; nonce: string; atMs: number; ttlMs: number; replace: boolean }
  | { op: 'inject'; nonce: string; atMs: number; key: string; agent?: string; content: string; strength: number; expect?: number }
  | { op: 'destroy'; nonce: string; atMs: number };

export type RecordOutcome = { ok: true; sequence: number } | { ok: false; reason: 'unknown' | 'exists' | 'conflict'; actual?: number };

export interface FoldedContext {
  exists: boolean;
  /** Epoch ms; Infinity when the context has no TTL. */
  expiresAtMs: number;
  /** Latest entry per (agent, key), in operation order. */
  entries: StoredEntry[];
  /** What happened to each record, by nonce. */
  outcomes: Map<string, RecordOutcome>;
}

/**
 * Replay a log in order (spec 2: operations do not commute, so the order of the log is the truth).
 * A record written after the context expired (by its own timestamp) finds no context. Every
 * reader folds the same lines the same way, so writers never need a lock: a conditional write
 * or a create that lost a race is simply a rejected record.
 */
export function foldLog(records: Iterable<SharedRecord>, nowMs: number): FoldedContext {
  const outcomes = new Map<string, RecordOutcome>();
  let live: { expiresAtMs: number; entries: Map<string, StoredEntry>; sequence: number } | undefined;
  const alive = (atMs: number) => live !== undefined && live.expiresAtMs > atMs;
  for (const record of records) {
    if (record.op === 'create') {
      if (alive(record.atMs) && !record.replace) {
        outcomes.set(record.nonce, { ok: false, reason: 'exists' });
        continue;
      }
      live = { expiresAtMs: record.ttlMs > 0 ? record.atMs + record.ttlMs : Number.POSITIVE_INFINITY, entries: new Map(), sequence: 0 };
      outcomes.set(record.nonce, { ok: true, sequence: 0 });
    } else if (!alive(record.atMs)) {
      outcomes.set(record.nonce, { ok: false, reason: 'unknown' });
    } else if (record.op === 'destroy') {
      live = undefined;
      outcomes.set(record.nonce, { ok: true, sequence: 0 });
    } else {
      const id = entryId(record.agent, record.key);
      const actual = live!.entries.get(id)?.sequence ?? 0;
      if (record.expect !== undefined && record.expect !== actual) {
        outcomes.set(record.nonce, { ok: false, reason: 'conflict', actual });
        continue;
      }
      const sequence = ++live!.sequence;
      // Delete first so the Map's insertion order is the operation order of the latest injections.
      live!.entries.delete(id);
      const { key, agent, content, strength, atMs } = record;
      live!.entries.set(id, { key, ...(agent === undefined ? {} : { agent }), content, strength, sequence, injectedAtMs: atMs });
      outcomes.set(record.nonce, { ok: true, sequence });
    }
  }
  const exists = live !== undefined && live.expiresAtMs > nowMs;
  return { exists, expiresAtMs: live?.expiresAtMs ?? 0, entries: exists ? [...live!.entries.values()] : [], outcomes };
}

/** The identity of an entry inside a context: its key within its scope (mission or one agent). */
export function entryId(agent: string | undefined, key: string): string {
  return agent === undefined ? `m\0${key}` : `a\0${agent}\0${key}`;
}

/** Latest entry per (agent, key), in sequence order: the fold of a store that keeps entries, not a log. */
export function latestEntries(entries: StoredEntry[]): StoredEntry[] {
  const latest = new Map<string, StoredEntry>();
  for (const entry of [...entries].sort((a, b) => a.sequence - b.sequence)) {
    const id = entryId(entry.agent, entry.key);
    latest.delete(id);
    latest.set(id, entry);
  }
  return [...latest.values()];
}

export interface ViewOptions {
  nowMs: number;
  decay?: SharedDecayOptions;
  /** The asking agent: it sees mission entries and its own; without it, mission entries only. */
  agent?: string;
}

/** Entries one asker may see, with strength decayed to `nowMs`, in operation order. */
export function visibleEntries(entries: StoredEntry[], view: ViewOptions): SharedEntry[] {
  const out: SharedEntry[] = [];
  for (const e of entries) {
    if (e.agent !== undefined && e.agent !== view.agent) continue;
    const strength = decayedStrength(e, view);
    if (view.decay?.minStrength !== undefined && strength < view.decay.minStrength) continue;
    out.push({ key: e.key, ...(e.agent === undefined ? {} : { agent: e.agent }), content: e.content, strength, sequence: e.sequence });
  }
  return out;
}

/**
 * Rank visible entries by BM25 over key and content times their decayed strength; ties keep the
 * operation order. Entries that do not match the text at all are left out.
 */
export function rankEntries(entries: SharedEntry[], text: string, limit: number): SharedContextHit[] {
  // BM25 needs unique document ids: the key plus the sequence, unique within a context (digits
  // are never terms). Path weight 1 because a key is a label, not a file path that hints strongly.
  const docId = (e: SharedEntry) => `${e.key}/${e.sequence}`;
  const { scores } = scoreBm25(entries.map((e) => ({ path: docId(e), content: e.content })), text, { pathWeight: 1 });
  const hits: SharedContextHit[] = [];
  for (const entry of entries) {
    const relevance = scores.get(docId(entry));
    if (relevance === undefined) continue;
    const score = relevance * entry.strength;
    if (score > 0) hits.push({ ...entry, score });
  }
  hits.sort((a, b) => b.score - a.score || a.sequence - b.sequence);
  return hits.slice(0, limit);
}

function decayedStrength(entry: StoredEntry, view: ViewOptions): number {
  const decay = view.decay;
  if (decay === undefined) return entry.strength;
  return entry.strength * 2 ** (-Math.max(0, view.nowMs - entry.injectedAtMs) / decay.halfLifeMs);
}

/** The inject record of a checked injection. */
export function injectRecord(entry: ReturnType<typeof checkInjection>, nonce: string, atMs: number): SharedRecord {
  return {
    op: 'inject',
    nonce,
    atMs,
    key: entry.key,
    ...(entry.agent === undefined ? {} : { agent: entry.agent }),
    content: entry.content,
    strength: entry.strength,
    ...(entry.expectSequence === undefined ? {} : { expect: entry.expectSequence }),
  };
}

/** `query` and `entries` of an adapter, from its one read: the entries an agent sees in a context. */
export function readMethods(view: (id: string, agent: string | undefined) => Promise<SharedEntry[]>): Pick<SharedContextPort, 'query' | 'entries'> {
  return {
    async query(id: string, text: string, query: SharedQueryOptions = {}): Promise<SharedContextHit[]> {
      checkContextId(id, 'query');
      const limit = checkQueryLimit(query);
      return rankEntries(await view(id, query.agent), text, limit);
    },
    async entries(id: string, query: Pick<SharedQueryOptions, 'agent'> = {}): Promise<SharedEntry[]> {
      checkContextId(id, 'entries');
      return view(id, query.agent);
    },
  };
}

// ---- argument checks every adapter applies the same way ----

export function checkContextId(id: unknown, operation: string): string {
  if (typeof id !== 'string' || id === '') throw new UsageError(`${operation}: the shared context id must be a non-empty string, e.g. "mission-42"`);
  if (id.length > 200) throw new UsageError(`${operation}: the shared context id is ${id.length} characters: use at most 200`);
  return id;
}

/** The TTL of a new context in ms, 0 = none. */
export function checkCreate(options: CreateSharedContextOptions, defaultTtlMs: number): { ttlMs: number; replace: boolean } {
  const ttlMs = options.ttlMs ?? defaultTtlMs;
  if (!Number.isInteger(ttlMs) || ttlMs < 0) {
    throw new UsageError(`createContext: ttlMs must be a whole number of milliseconds >= 0 (0 = no expiry), got ${String(ttlMs)}`);
  }
  return { ttlMs, replace: options.replace === true };
}

export function checkInjection(injection: SharedInjection): Required<Pick<SharedInjection, 'key' | 'content' | 'strength'>> & Pick<SharedInjection, 'agent' | 'expectSequence'> {
  if (typeof injection.key !== 'string' || injection.key === '') throw new UsageError('inject: the key must be a non-empty string');
  const strength = injection.strength ?? 1;
  if (!Number.isFinite(strength) || strength < 0) {
    throw new UsageError(`inject: strength of "${injection.key}" must be a finite number >= 0, got ${String(strength)}`);
  }
  if (typeof injection.content !== 'string') throw new UsageError(`inject: content of "${injection.key}" must be a string`);
  const bytes = Buffer.byteLength(injection.content, 'utf8');
  if (bytes > MAX_ENTRY_BYTES) {
    throw new UsageError(`inject: content of "${injection.key}" is ${bytes} bytes, over the ${MAX_ENTRY_BYTES} limit: store a summary or a pointer instead`);
  }
  if (injection.agent !== undefined && (typeof injection.agent !== 'string' || injection.agent === '')) {
    throw new UsageError(`inject: agent of "${injection.key}" must be a non-empty string when given`);
  }
  const expect = injection.expectSequence;
  if (expect !== undefined && (!Number.isInteger(expect) || expect < 0)) {
    throw new UsageError(`inject: expectSequence of "${injection.key}" must be a whole number >= 0 (0 = the key must be new), got ${String(expect)}`);
  }
  return { key: injection.key, content: injection.content, strength, agent: injection.agent, expectSequence: expect };
}

export function checkQueryLimit(options: SharedQueryOptions): number {
  const limit = options.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`query: limit must be a positive integer, got ${String(limit)}`);
  return limit;
}

export function checkDecay(decay: SharedDecayOptions | undefined): void {
  if (decay !== undefined && !(Number.isFinite(decay.halfLifeMs) && decay.halfLifeMs > 0)) {
    throw new UsageError(`shared context decay.halfLifeMs must be a positive number of milliseconds, got ${String(decay.halfLifeMs)}`);
  }
}

/** Throw the error an adapter reports for a rejected record. */
export function throwOutcome(outcome: RecordOutcome | undefined, contextId: string, key = '', expected = 0): number {
  if (outcome === undefined) throw new UnknownSharedContextError(contextId);
  if (outcome.ok) return outcome.sequence;
  if (outcome.reason === 'exists') {
    throw new UsageError(`createContext: shared context "${contextId}" already exists: destroy it first or pass { replace: true }`);
  }
  if (outcome.reason === 'conflict') throw new SharedContextConflictError(contextId, key, expected, outcome.actual ?? 0);
  throw new UnknownSharedContextError(contextId);
}
