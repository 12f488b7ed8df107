import type { Command } from '../command.js';
import { UsageError } from '../../errors.js';
import { loadCommandConfig } from '../command-config.js';
import { indexDirOf, resolveCacheDir, resolveEmbeddingsCacheDir, resolveSecretCacheDir, resolveSummaryCacheDir, resolveTokenCacheDir } from '../../cache/cache-dir.js';
import { cacheStats, clearCache, indexStats, pruneCache, removeIndexFiles, type CacheDirStats, type PruneResult } from '../../cache/cache-admin.js';

const ACTIONS = ['stats', 'prune', 'clear'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * `aiwg cache stats | prune | clear`: sizes, entry counts and ages of the content-addressed caches
 * and of the persistent index (the fact store, kept outlines and import graph, piece counts, the
 * tokenizer table, the ANN index).
 */
export const cacheCommand: Command = {
  name: 'cache',
  usage: 'aiwg cache stats|prune|clear [--root DIR] [--json]',
  allowPositionals: true,
  options: {
    root: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    stats: 'entries, size and the age of the oldest and newest entry of each cache and of the index',
    prune: 'remove expired (summarization.caching.max_age_hours), corrupt and foreign-version entries, and dead writers\' temp files',
    clear: 'remove every entry, the embeddings packs and the index (the next run starts cold); only files the caches wrote are touched',
    '--root DIR': 'repository root (default: the current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--json': 'print the result as one JSON object',
  },
  async run({ values, positionals }, io) {
    const action = positionals[0] as Action | undefined;
    if (positionals.length !== 1 || !ACTIONS.includes(action!)) {
      throw new UsageError(`give one action: ${ACTIONS.join(', ')} (e.g. aiwg cache stats)`);
    }
    const { root, config } = await loadCommandConfig(values, io);
    // Our entry format: summaries and tokens. Embeddings belong to the semantic scorer: counted whole.
    const caches = [
      { name: 'summaries', dir: resolveSummaryCacheDir(root, config), ours: true },
      { name: 'tokens', dir: resolveTokenCacheDir(root, config), ours: true },
      { name: 'secrets', dir: resolveSecretCacheDir(root, config), ours: true },
      { name: 'embeddings', dir: resolveEmbeddingsCacheDir(root, config), ours: false },
    ];
    const index = { name: 'index', dir: indexDirOf(resolveCacheDir(root, config)) };
    const nowMs = Date.now();
    if (action === 'stats') {
      const stats = [...(await Promise.all(caches.map((c) => cacheStats(c.name, c.dir, c.ours)))), await indexStats(index.name, index.dir)];
      const shown = stats.filter((s) => s.exists || (s.name !== 'embeddings' && s.name !== 'index'));
      io.stdout(values.json === true ? `${JSON.stringify({ caches: shown.map((s) => statsJson(s, nowMs)) }, null, 2)}\n` : renderStats(shown, nowMs));
      return 0;
    }
    const maxAgeMs = config.summarization.caching.max_age_hours * 3_600_000;
    const results: PruneResult[] = [];
    for (const c of caches) {
      if (action === 'clear') results.push(await clearCache(c.name, c.dir, c.ours));
      else if (c.ours) results.push(await pruneCache(c.name, c.dir, { nowMs, maxAgeMs }));
    }
    results.push(await removeIndexFiles(index.name, index.dir, { all: action === 'clear', nowMs }));
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ action, caches: results.map((r) => ({ name: r.name, dir: r.dir, removed: r.removed, freed_bytes: r.freedBytes, kept: r.kept })) }, null, 2)}\n`);
    } else {
      io.stdout(results.map((r) => `${action === 'clear' ? 'cleared' : 'pruned'} ${r.name}: ${r.removed} files, ${formatBytes(r.freedBytes)} freed, ${r.kept} kept (${r.dir})\n`).join(''));
    }
    return 0;
  },
};

function statsJson(s: CacheDirStats, nowMs: number) {
  return {
    name: s.name,
    dir: s.dir,
    exists: s.exists,
    entries: s.entries,
    bytes: s.bytes,
    oldest_age_hours: ageHours(s.oldestMs, nowMs),
    newest_age_hours: ageHours(s.newestMs, nowMs),
  };
}

function ageHours(ms: number | null, nowMs: number): number | null {
  return ms === null ? null : Math.round(((nowMs - ms) / 3_600_000) * 10) / 10;
}

function renderStats(stats: CacheDirStats[], nowMs: number): string {
  const rows = stats.map((s) => [
    s.name,
    String(s.entries),
    formatBytes(s.bytes),
    s.oldestMs === null ? '-' : `${ageHours(s.oldestMs, nowMs)} h`,
    s.newestMs === null ? '-' : `${ageHours(s.newestMs, nowMs)} h`,
    s.exists ? s.dir : `${s.dir} (absent)`,
  ]);
  const header = ['cache', 'entries', 'size', 'oldest', 'newest', 'dir'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
