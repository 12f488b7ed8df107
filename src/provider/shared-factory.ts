import { isAbsolute, join, resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { checkRedisUrl } from '../util/redis-connection.js';
import type { SharedContextPort } from './ports.js';
import { createInMemorySharedContext, type SharedContextOptions } from './shared-context.js';
import { createFileSharedContext } from './shared-file.js';
import { createRedisSharedContext } from './shared-redis.js';

/** Where a shared context store lives, parsed from `shared_context.url` / AIWG_SHARED_CONTEXT. */
export type SharedStoreLocation = { kind: 'memory' } | { kind: 'file'; dir: string } | { kind: 'redis'; url: string };

/** The embedded store's directory under a root. */
export function defaultSharedDir(root: string): string {
  return join(root, '.aiwg', 'shared');
}

/**
 * `memory:`, `file:` (the embedded store under `<root>/.aiwg/shared`), `file:DIR` / `file://DIR`
 * or a plain directory path (relative to the root), `redis://...` / `rediss://...`.
 */
export function parseSharedLocation(url: string, root: string, source = 'shared_context.url'): SharedStoreLocation {
  const value = url.trim();
  if (value === 'memory:' || value === 'memory') return { kind: 'memory' };
  if (/^rediss?:\/\//.test(value)) return { kind: 'redis', url: checkRedisUrl(value, source).href };
  const path = value.startsWith('file:') ? value.slice('file:'.length).replace(/^\/\/(?=\/)/, '') : value;
  if (path === '') return { kind: 'file', dir: defaultSharedDir(root) };
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) && !value.startsWith('file:')) {
    throw new UsageError(`${source}: "${value}" is not a shared context store: use memory:, file:[DIR], a directory path or redis://HOST:PORT`);
  }
  return { kind: 'file', dir: isAbsolute(path) ? path : resolve(root, path) };
}

export interface SharedContextFromConfigOptions extends SharedContextOptions {
  root: string;
  config: Config;
}

/**
 * The composition root's factory for the SharedContextPort (spec Q4): the adapter named by
 * `shared_context.url` (env AIWG_SHARED_CONTEXT), scoped to `shared_context.workspace`, with
 * `shared_context.ttl_hours` as the TTL of contexts created without one.
 */
export function createSharedContext(options: SharedContextFromConfigOptions): SharedContextPort {
  const shared = options.config.shared_context;
  const location = parseSharedLocation(shared.url, options.root);
  const common: SharedContextOptions = {
    now: options.now,
    decay: options.decay,
    defaultTtlMs: options.defaultTtlMs ?? Math.round(shared.ttl_hours * 3_600_000),
  };
  if (location.kind === 'memory') return createInMemorySharedContext(common);
  if (location.kind === 'file') return createFileSharedContext({ ...common, dir: location.dir, workspace: shared.workspace });
  return createRedisSharedContext({ ...common, url: location.url, workspace: shared.workspace });
}
