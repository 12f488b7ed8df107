import type { CreateSharedContextOptions, SharedContextPort, SharedEntry, SharedInjection } from './ports.js';
import type { SharedContextOptions } from './shared-context.js';
import { DEFAULT_WORKSPACE } from './shared-file.js';
import {
  checkContextId,
  checkCreate,
  checkDecay,
  checkInjection,
  readMethods,
  latestEntries,
  SharedContextConflictError,
  UnknownSharedContextError,
  visibleEntries,
  type StoredEntry,
} from './shared-log.js';
import { connectRedis, type RedisConnection } from '../util/redis-connection.js';
import { UsageError } from '../errors.js';

export interface RedisSharedContextOptions extends SharedContextOptions {
  /** `redis://[user:pass@]host:port[/db]` or `rediss://...`. */
  url: string;
  /** Workspace scope: part of every key, so workspaces on one server never see each other. */
  workspace?: string;
  /** Most ms one operation may wait for the server (while it reconnects, say) before failing. */
  timeoutMs?: number;
}

/** A transaction that keeps losing races gives up after this many tries. */
const MAX_ATTEMPTS = 50;

/**
 * The Redis shared context adapter, for many agents on many machines (the official `redis`
 * client). Keys of one context share a hash tag, so a cluster keeps them on one slot:
 *   `aiwg:shared:<workspace>:{<id>}:meta`  JSON of the context, with the context's TTL (PX)
 *   `...:seq`   the last sequence number (the version optimistic writers check)
 *   `...:log`   list of entries (JSON), appended in sequence order
 *   `...:keys`  hash (scope, key) -> sequence of the key's current entry
 * inject WATCHes meta and seq, reads them, and writes in MULTI/EXEC: two writers that read the
 * same seq cannot both commit, the loser retries with the new one, so the list order is the
 * sequence order and `expectSequence` is checked against a value nobody changed meanwhile.
 * create and destroy modify meta, so they abort a racing inject, which then sees the new state.
 * The client reconnects by itself after a server restart; operations wait for it up to timeoutMs.
 */
export function createRedisSharedContext(options: RedisSharedContextOptions): SharedContextPort {
  const now = options.now ?? (() => Date.now());
  checkDecay(options.decay);
  const workspace = encodeURIComponent(options.workspace ?? DEFAULT_WORKSPACE);
  const keys = (id: string) => {
    const base = `aiwg:shared:${workspace}:{${encodeURIComponent(id)}}`;
    return { meta: `${base}:meta`, seq: `${base}:seq`, log: `${base}:log`, keys: `${base}:keys` };
  };
  let connection: Promise<RedisConnection> | undefined;
  const redis = () => (connection ??= connectRedis(options.url, { timeoutMs: options.timeoutMs }));

  const view = async (id: string, agent: string | undefined): Promise<SharedEntry[]> => {
    const k = keys(id);
    const [meta, items] = await (await redis()).run(async (client) => {
      const replies = await client.multi().get(k.meta).lRange(k.log, 0, -1).exec();
      // exec's replies are untyped in order; these are GET's and LRANGE's.
      return [replies[0] as unknown as string | null, replies[1] as unknown as string[]] as const;
    });
    if (meta === null) throw new UnknownSharedContextError(id);
    const stored = items.map(parseEntry).filter((e): e is StoredEntry => e !== undefined);
    return visibleEntries(latestEntries(stored), { nowMs: now(), agent, decay: options.decay });
  };

  return {
    async createContext(id: string, create: CreateSharedContextOptions = {}): Promise<void> {
      checkContextId(id, 'createContext');
      const { ttlMs, replace } = checkCreate(create, options.defaultTtlMs ?? 0);
      const k = keys(id);
      const meta = JSON.stringify({ createdMs: now(), ttlMs });
      await (await redis()).optimistic(MAX_ATTEMPTS, async (client) => {
        if (!replace) {
          await client.watch(k.meta);
          if ((await client.get(k.meta)) !== null) {
            await client.unwatch();
            throw new UsageError(`createContext: shared context "${id}" already exists: destroy it first or pass { replace: true }`);
          }
        }
        const multi = client.multi().set(k.meta, meta, ttlMs > 0 ? { PX: ttlMs } : {}).del([k.seq, k.log, k.keys]);
        await multi.exec();
      });
    },

    async inject(id: string, injection: SharedInjection): Promise<number> {
      checkContextId(id, 'inject');
      const entry = checkInjection(injection);
      const k = keys(id);
      const field = `${entry.agent ?? ''}\0${entry.key}`;
      return (await redis()).optimistic(MAX_ATTEMPTS, async (client) => {
        await client.watch([k.meta, k.seq]);
        const [meta, last, ttl, current] = await Promise.all([client.get(k.meta), client.get(k.seq), client.pTTL(k.meta), client.hGet(k.keys, field)]);
        if (meta === null) {
          await client.unwatch();
          throw new UnknownSharedContextError(id);
        }
        const actual = Number(current ?? 0);
        if (entry.expectSequence !== undefined && entry.expectSequence !== actual) {
          await client.unwatch();
          throw new SharedContextConflictError(id, entry.key, entry.expectSequence, actual);
        }
        const sequence = Number(last ?? 0) + 1;
        const stored: StoredEntry = {
          key: entry.key,
          ...(entry.agent === undefined ? {} : { agent: entry.agent }),
          content: entry.content,
          strength: entry.strength,
          sequence,
          injectedAtMs: now(),
        };
        const multi = client.multi().set(k.seq, String(sequence)).rPush(k.log, JSON.stringify(stored)).hSet(k.keys, field, String(sequence));
        // The context's remaining lifetime, so its parts expire with its meta (-1: no TTL).
        if (ttl > 0) multi.pExpire(k.seq, ttl).pExpire(k.log, ttl).pExpire(k.keys, ttl);
        await multi.exec();
        return sequence;
      });
    },

    ...readMethods(view),

    async destroy(id: string): Promise<void> {
      checkContextId(id, 'destroy');
      const k = keys(id);
      const removed = await (await redis()).run(async (client) => {
        const replies = await client.multi().del(k.meta).del([k.seq, k.log, k.keys]).exec();
        return Number(replies[0]);
      });
      if (removed === 0) throw new UnknownSharedContextError(id);
    },

    async close(): Promise<void> {
      const open = connection;
      connection = undefined;
      if (open !== undefined) await (await open.catch(() => undefined))?.close();
    },
  };
}

function parseEntry(text: string): StoredEntry | undefined {
  try {
    const e = JSON.parse(text) as Partial<StoredEntry>;
    const ok = typeof e.key === 'string' && typeof e.content === 'string' && typeof e.strength === 'number' && typeof e.sequence === 'number';
    return ok && typeof e.injectedAtMs === 'number' ? (e as StoredEntry) : undefined;
  } catch {
    return undefined;
  }
}

