import type { CreateSharedContextOptions, SharedContextPort, SharedEntry, SharedInjection } from './ports.js';
import {
  checkContextId,
  checkCreate,
  checkDecay,
  checkInjection,
  injectRecord,
  readMethods,
  foldLog,
  throwOutcome,
  visibleEntries,
  type FoldedContext,
  type SharedDecayOptions,
  type SharedRecord,
} from './shared-log.js';

export { UnknownSharedContextError, SharedContextConflictError, SharedStoreError, DEFAULT_QUERY_LIMIT, type SharedDecayOptions } from './shared-log.js';

/** Options every shared context adapter takes. */
export interface SharedContextOptions {
  /** Injected clock, epoch ms: TTL and decay. */
  now?: () => number;
  /** No decay when absent: strength stays as injected. */
  decay?: SharedDecayOptions;
  /** TTL of a context created without `ttlMs`, in ms; 0 (never expire) when absent. */
  defaultTtlMs?: number;
}

export type InMemorySharedContextOptions = SharedContextOptions;

/**
 * The in-memory shared context adapter (tests and single-process use). State lives in the
 * returned object, never in the module: two instances do not see each other. Each context is an
 * operation log folded on every read, the same log and fold the embedded store keeps on disk.
 * Entries that decay below `minStrength` are forgotten for good once a query sees them.
 */
export function createInMemorySharedContext(options: InMemorySharedContextOptions = {}): SharedContextPort {
  const now = options.now ?? (() => Date.now());
  checkDecay(options.decay);
  const logs = new Map<string, SharedRecord[]>();
  const forgotten = new Map<string, Set<number>>();
  let nonces = 0;

  const append = (id: string, record: SharedRecord): FoldedContext => {
    const log = logs.get(id) ?? [];
    log.push(record);
    logs.set(id, log);
    return foldLog(log, now());
  };
  /** The entries `agent` sees; forgets (for good) those decayed below minStrength. */
  const view = (id: string, agent: string | undefined): SharedEntry[] => {
    const folded = foldLog(logs.get(id) ?? [], now());
    if (!folded.exists) throwOutcome(undefined, id);
    const gone = forgotten.get(id) ?? new Set<number>();
    const live = folded.entries.filter((e) => !gone.has(e.sequence));
    const seen = visibleEntries(live, { nowMs: now(), agent, decay: options.decay });
    if (options.decay?.minStrength !== undefined) {
      const kept = new Set(seen.map((e) => e.sequence));
      const all = visibleEntries(live, { nowMs: now(), agent });
      forgotten.set(id, new Set([...gone, ...all.filter((e) => !kept.has(e.sequence)).map((e) => e.sequence)]));
    }
    return seen;
  };

  return {
    async createContext(id: string, create: CreateSharedContextOptions = {}): Promise<void> {
      checkContextId(id, 'createContext');
      const { ttlMs, replace } = checkCreate(create, options.defaultTtlMs ?? 0);
      const nonce = String(++nonces);
      throwOutcome(append(id, { op: 'create', nonce, atMs: now(), ttlMs, replace }).outcomes.get(nonce), id);
      forgotten.delete(id);
    },

    async inject(id: string, injection: SharedInjection): Promise<number> {
      checkContextId(id, 'inject');
      const entry = checkInjection(injection);
      if (!foldLog(logs.get(id) ?? [], now()).exists) throwOutcome(undefined, id);
      const nonce = String(++nonces);
      const record = injectRecord(entry, nonce, now());
      return throwOutcome(append(id, record).outcomes.get(nonce), id, entry.key, entry.expectSequence);
    },

    ...readMethods(async (id, agent) => view(id, agent)),

    async destroy(id: string): Promise<void> {
      checkContextId(id, 'destroy');
      if (!foldLog(logs.get(id) ?? [], now()).exists) throwOutcome(undefined, id);
      const nonce = String(++nonces);
      throwOutcome(append(id, { op: 'destroy', nonce, atMs: now() }).outcomes.get(nonce), id);
      logs.delete(id);
      forgotten.delete(id);
    },

    async close(): Promise<void> {
      logs.clear();
    },
  };
}
