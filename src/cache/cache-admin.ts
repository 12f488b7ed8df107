import { open, readdir, readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { CACHE_FORMAT_VERSION, CACHE_MARKER, ENTRY_SUFFIX, hasCacheMarker, isExpired, parseEnvelope } from './disk-cache.js';
import { EMBEDDING_PACK_FILE, EMBEDDING_PACK_MAGIC } from '../scoring/semantic/embedding-store.js';
import { annIndexFiles } from '../scoring/semantic/ann-index.js';
import { FACT_STORE_MAGIC } from '../facts/fact-store.js';
import { OUTLINE_BLOCKS_MAGIC } from '../summarize/syntax/block-store.js';
import { IMPORT_GRAPH_MAGIC } from '../scoring/import-graph/graph-cache.js';
import { PIECE_COUNTS_MAGIC } from '../tokenize/piece-counts.js';
import { BPE_TABLE_MAGIC } from '../tokenize/bpe-table.js';
import { FILE_LABELS_MAGIC } from '../scoring/semantic/file-labels.js';
import { maxOf, minOf } from '../util/extremes.js';

/** Temp files of a writer that died are removed by prune once this old. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

export interface CacheDirStats {
  name: string;
  dir: string;
  exists: boolean;
  entries: number;
  bytes: number;
  /** File times of the oldest and newest entry, epoch ms. */
  oldestMs: number | null;
  newestMs: number | null;
}

export interface CacheFile {
  path: string;
  bytes: number;
  mtimeMs: number;
  /** True when the path has the layout of our entries: `<ns>/<shard>/<shard…>.json`. */
  isEntry: boolean;
  isTemp: boolean;
}

/**
 * Files under a cache directory. Only files laid out as our entries (or their temp files) are
 * ever touched by prune and clear, so a misconfigured cache path cannot cost the user a file.
 */
export async function listCacheFiles(dir: string): Promise<CacheFile[] | null> {
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true })).map(String);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const files: CacheFile[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    const parts = relative(dir, path).split(sep);
    const base = parts[2] ?? '';
    const layout = parts.length === 3 && parts[1]!.length === 2 && base.startsWith(parts[1]!);
    const isTemp = layout && base.endsWith('.tmp') && base.includes(`${ENTRY_SUFFIX}.`);
    files.push({ path, bytes: info.size, mtimeMs: info.mtimeMs, isEntry: layout && base.endsWith(ENTRY_SUFFIX), isTemp });
  }
  return files;
}

/** Sizes, entry counts and ages. `entriesOnly` false counts every file (a foreign cache such as embeddings). */
export async function cacheStats(name: string, dir: string, entriesOnly = true): Promise<CacheDirStats> {
  const files = await listCacheFiles(dir);
  return statsOf(name, dir, files !== null, (files ?? []).filter((f) => !entriesOnly || f.isEntry));
}

/** The stats of the files counted in a directory. */
function statsOf(name: string, dir: string, exists: boolean, counted: readonly CacheFile[]): CacheDirStats {
  const times = counted.map((f) => f.mtimeMs);
  return {
    name,
    dir,
    exists,
    entries: counted.length,
    bytes: counted.reduce((sum, f) => sum + f.bytes, 0),
    oldestMs: times.length > 0 ? minOf(times) : null,
    newestMs: times.length > 0 ? maxOf(times) : null,
  };
}

export interface PruneResult {
  name: string;
  dir: string;
  removed: number;
  freedBytes: number;
  kept: number;
}

/** Remove expired, corrupt and foreign-version entries and stale temp files. */
export async function pruneCache(name: string, dir: string, options: { nowMs: number; maxAgeMs: number }): Promise<PruneResult> {
  const result: PruneResult = { name, dir, removed: 0, freedBytes: 0, kept: 0 };
  const removed: string[] = [];
  const marked = hasCacheMarker(dir);
  for (const file of (await listCacheFiles(dir)) ?? []) {
    let remove = false;
    if (file.isTemp) remove = options.nowMs - file.mtimeMs > STALE_TEMP_MS;
    else if (file.isEntry) {
      const entry = parseEnvelope(await readFile(file.path, 'utf8').catch(() => ''));
      // A file that is not our envelope is corrupt only in a directory we own (marked).
      remove = !entry ? marked : entry.v !== CACHE_FORMAT_VERSION || isExpired(entry.createdMs, options.nowMs, options.maxAgeMs);
    } else continue;
    // Temp files are recognised by name only: without our marker, the directory is not ours.
    if (file.isTemp && !marked) continue;
    if (remove && (await removeFile(file.path))) {
      result.removed += 1;
      result.freedBytes += file.bytes;
      removed.push(file.path);
    } else if (!remove) result.kept += 1;
  }
  await removeEmptiedDirs(removed, dir);
  return result;
}

/**
 * Remove what our caches wrote, and nothing else. A directory without the cache marker is
 * left alone (and reported as kept); inside a marked one, an entry file goes only when its
 * content is our envelope, a temp file only when it has our temp name. The embeddings cache
 * (`entriesOnly` false) is a pack per model: `<dir>/<model>/vectors.pack` starting with the
 * pack magic, and its compaction temp files.
 */
export async function clearCache(name: string, dir: string, entriesOnly = true): Promise<PruneResult> {
  const result: PruneResult = { name, dir, removed: 0, freedBytes: 0, kept: 0 };
  const files = (await listCacheFiles(dir)) ?? [];
  const marked = hasCacheMarker(dir);
  const removed: string[] = [];
  for (const file of files) {
    if (basename(file.path) === CACHE_MARKER) continue;
    const ours = entriesOnly ? await isOurEntry(file, marked) : await isOurPackFile(dir, file.path, marked);
    if (!ours) {
      result.kept += 1;
      continue;
    }
    if (await removeFile(file.path)) {
      result.removed += 1;
      result.freedBytes += file.bytes;
      removed.push(file.path);
    }
  }
  await removeEmptiedDirs(removed, dir);
  return result;
}

async function isOurEntry(file: CacheFile, marked: boolean): Promise<boolean> {
  if (file.isTemp) return marked;
  if (!file.isEntry) return false;
  // In a marked directory an entry-shaped file is ours even when corrupt; elsewhere only a valid envelope is.
  return marked || parseEnvelope(await readFile(file.path, 'utf8').catch(() => '')) !== undefined;
}

async function isOurPackFile(dir: string, path: string, marked: boolean): Promise<boolean> {
  const parts = relative(dir, path).split(sep);
  if (parts.length !== 2) return false;
  const base = parts[1]!;
  if (base === EMBEDDING_PACK_FILE) {
    const head = await readHead(path, EMBEDDING_PACK_MAGIC.length);
    return head.length === 0 ? marked : head.toString('latin1') === EMBEDDING_PACK_MAGIC;
  }
  return marked && base.startsWith(`${EMBEDDING_PACK_FILE}.`) && base.endsWith('.tmp');
}

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return Buffer.alloc(0);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function removeFile(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Shard and namespace directories emptied by removing `paths` (only those: never a user's
 * directory, never the cache directory itself; rmdir fails on a directory that is not empty).
 */
async function removeEmptiedDirs(paths: string[], cacheDir: string): Promise<void> {
  const shards = [...new Set(paths.map((p) => dirname(p)))].filter((d) => d !== cacheDir);
  for (const shard of shards) await rmdir(shard).catch(() => undefined);
  for (const namespace of new Set(shards.map((s) => dirname(s)))) if (namespace !== cacheDir) await rmdir(namespace).catch(() => undefined);
}

/**
 * The first bytes of each file the persistent index's writers frame (util/framed-file.ts); the
 * BPE table's for a table kept here (where the model cache cannot be written, and by earlier
 * versions: it lives beside the models).
 */
const INDEX_MAGICS: readonly Buffer[] = [FACT_STORE_MAGIC, OUTLINE_BLOCKS_MAGIC, IMPORT_GRAPH_MAGIC, PIECE_COUNTS_MAGIC, BPE_TABLE_MAGIC, FILE_LABELS_MAGIC];
const INDEX_MAGIC_BYTES = Math.max(...INDEX_MAGICS.map((m) => m.length));

/**
 * The files of the persistent index directory (`<cache dir>/index/`) its writers wrote: a file
 * that starts with one of their magics (a temp file of a writer that died included), and the ANN
 * index's meta, index and temp files (annIndexFiles). Anything else there is counted as kept and
 * never touched; null when the directory does not exist.
 */
export async function indexFiles(dir: string): Promise<{ ours: CacheFile[]; others: number } | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const ann = new Set(await annIndexFiles(dir));
  const ours: CacheFile[] = [];
  let others = 0;
  for (const name of names.sort()) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || name === '.gitignore') continue;
    const head = ann.has(path) ? undefined : await readHead(path, INDEX_MAGIC_BYTES);
    if (head !== undefined && !INDEX_MAGICS.some((magic) => head.subarray(0, magic.length).equals(magic))) {
      others += 1;
      continue;
    }
    const isTemp = name.endsWith('.tmp');
    ours.push({ path, bytes: info.size, mtimeMs: info.mtimeMs, isEntry: !isTemp, isTemp });
  }
  return { ours, others };
}

/** Files, size and ages of the persistent index (indexFiles). */
export async function indexStats(name: string, dir: string): Promise<CacheDirStats> {
  const found = await indexFiles(dir);
  return statsOf(name, dir, found !== null, found?.ours ?? []);
}

/**
 * Remove the persistent index's files (`clear`: all of them, so the next run indexes anew;
 * `prune`: only the temp files of writers that died, STALE_TEMP_MS ago: the index files bound
 * their own size). Files the index did not write stay.
 */
export async function removeIndexFiles(name: string, dir: string, options: { all: boolean; nowMs: number }): Promise<PruneResult> {
  const result: PruneResult = { name, dir, removed: 0, freedBytes: 0, kept: 0 };
  const found = await indexFiles(dir);
  result.kept = found?.others ?? 0;
  for (const file of found?.ours ?? []) {
    const remove = options.all || (file.isTemp && options.nowMs - file.mtimeMs > STALE_TEMP_MS);
    if (remove && (await removeFile(file.path))) {
      result.removed += 1;
      result.freedBytes += file.bytes;
    } else result.kept += 1;
  }
  return result;
}
