import { AiwgError, UsageError } from '../errors.js';

/**
 * One connection (a small pool) to a Redis server through the official `redis` client, for the
 * shared context store and the shared caches. The client is imported lazily: nothing pays for
 * it unless a `redis://` URL is configured. Pooled connections let concurrent operations of one
 * process each WATCH their own keys (WATCH state belongs to a connection).
 */

type RedisModule = typeof import('redis');
type Pool = ReturnType<typeof createPool>;
/** A client of the pool, as `execute` hands it out. */
export type RedisClient = Parameters<Parameters<Pool['execute']>[0]>[0];

export interface RedisConnection {
  /** The URL with any password masked, for messages. */
  readonly label: string;
  /** Run commands on one pooled client, failing with a SharedStoreError after the timeout. */
  run<T>(fn: (client: RedisClient) => Promise<T>): Promise<T>;
  /** `run`, retried (with jitter) while the transaction aborts because a WATCHed key changed. */
  optimistic<T>(attempts: number, fn: (client: RedisClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface ConnectRedisOptions {
  /** Most ms one operation (or the first connection) may take; 15 s when absent. */
  timeoutMs?: number;
}

export const DEFAULT_REDIS_TIMEOUT_MS = 15_000;
const POOL_SIZE = 8;

/** The server cannot be reached or refused a command. */
export class RedisStoreError extends AiwgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_REDIS', message, { exitCode: 2, ...options });
    this.name = 'RedisStoreError';
  }
}

/** A redis:// or rediss:// URL, or a UsageError naming where it came from. */
export function checkRedisUrl(url: string, source: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${source}: "${maskRedisUrl(url)}" is not a URL: use redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new UsageError(`${source}: "${maskRedisUrl(url)}" is not a redis:// or rediss:// URL: use e.g. redis://127.0.0.1:6379`);
  }
  return parsed;
}

/** A URL fit for a message: the password, if any, replaced by ***. */
export function maskRedisUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}

export async function connectRedis(url: string, options: ConnectRedisOptions = {}): Promise<RedisConnection> {
  checkRedisUrl(url, 'redis');
  const label = maskRedisUrl(url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  const redis: RedisModule = await import('redis');
  const pool = createPool(redis, url, timeoutMs);
  let lastError: unknown;
  // Without a listener the client's 'error' events would crash the process; the cause is kept
  // for the message of an operation that times out.
  pool.on('error', (error: unknown) => void (lastError = error));
  const failure = (what: string, cause: unknown) =>
    cause instanceof AiwgError
      ? cause
      : new RedisStoreError(`Redis at ${label}: ${what}${cause instanceof Error ? ` (${cause.message})` : ''}: start the server or point the URL at a running one`, { cause });
  const withTimeout = async <T>(what: string, work: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(failure(`${what} did not finish within ${timeoutMs} ms`, lastError)), timeoutMs);
    });
    try {
      return await Promise.race([work, timeout]);
    } catch (error) {
      throw failure(what, error);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    await withTimeout('connecting', pool.connect());
  } catch (error) {
    pool.destroy();
    throw error;
  }
  const run = <T>(fn: (client: RedisClient) => Promise<T>) => withTimeout('the operation', pool.execute(fn));
  return {
    label,
    run,
    async optimistic(attempts, fn) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await run(fn);
        } catch (error) {
          const lostRace = error instanceof RedisStoreError && error.cause instanceof redis.WatchError;
          if (!lostRace || attempt >= attempts) throw error;
          // Jittered back-off so racing writers do not retry in lockstep.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
        }
      }
    },
    async close() {
      await pool.close().catch(() => pool.destroy());
    },
  };
}

function createPool(redis: RedisModule, url: string, timeoutMs: number) {
  return redis.createClientPool(
    // RESP2 replies (plain arrays and strings); back off 50 ms, 100 ms, ... up to 1 s, forever,
    // so a restarted server is picked up again.
    { url, RESP: 2, socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000), connectTimeout: timeoutMs } },
    { minimum: 1, maximum: POOL_SIZE, acquireTimeout: timeoutMs },
  );
}
