import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { modelSlug } from './embedding-store.js';

/**
 * An hnswlib-node index over chunk vectors, persisted in `indexDir` (`<cache dir>/index/`) and kept
 * in step with the chunk set incrementally: new chunks are added, vanished ones marked deleted, and
 * the index is rebuilt when deletions pass REBUILD_DELETED_FRACTION or the model changes.
 *
 * Files: `<slug>.json` (meta: model, dims, label -> chunk key, the index file's name) and
 * `<slug>-<token>.hnsw`. A writer saves a fresh index file first and renames the meta over last,
 * so a reader always sees a meta that names a complete index; superseded index files are removed.
 */
export const ANN_FORMAT_VERSION = 1;
const REBUILD_DELETED_FRACTION = 0.3;
const HNSW_M = 16;
const HNSW_EF_CONSTRUCTION = 48;
const HNSW_SEED = 42;
const MIN_EF = 100;

export interface AnnQuery {
  indexDir: string;
  modelId: string;
  dimensions: number;
  /** Every current chunk key (duplicates ignored). */
  keys: readonly string[];
  /**
   * How `keys` differs from an earlier key list (`from`): when the held index was brought in step
   * with that very list, only these keys are added and removed, without a diff of the whole set.
   */
  changes?: { from: readonly string[]; added: readonly string[]; removed: readonly string[] };
  vectorOf(key: string): Float32Array;
  query: Float32Array;
  /** Chunks to return. */
  k: number;
}

export interface AnnResult {
  /** Best first: cosine similarity (vectors are unit length; inner-product space). */
  hits: Array<{ key: string; similarity: number }>;
  rebuilt: boolean;
  added: number;
  removed: number;
}

interface Meta {
  format: number;
  modelId: string;
  dimensions: number;
  indexFile: string;
  /** label -> chunk key; null for a deleted label. */
  labels: Array<string | null>;
}

type Hnsw = import('hnswlib-node').HierarchicalNSW;

/**
 * An ANN index a long-lived caller keeps in memory between searches (the warm index of a server):
 * the index file is read once, and a search over the same key list as the last one (the same
 * array) skips the diff against the chunk set. The index on disk is still updated when chunks
 * come or go, so the next process starts from it.
 */
export interface AnnHandle {
  state?: AnnState;
  /**
   * Save a changed index after the search answers instead of before: the write of the whole
   * index is off the query's path (a one-shot run summarises meanwhile and awaits `saving` as it
   * ends); the next search waits for the save before it touches the index.
   */
  deferSave?: boolean;
  /** The deferred save under way (its failure only means the next process syncs from an older index). */
  saving?: Promise<void>;
  /** The index on disk, read ahead of the first search (readIndexAhead), which takes it. */
  ahead?: { key: string; reading: Promise<OnDisk | null> };
}

/** An index read from disk: its meta and the index that meta names. */
interface OnDisk {
  meta: Meta;
  index: Hnsw;
}

type IndexOf = Pick<AnnQuery, 'indexDir' | 'modelId' | 'dimensions'>;
const indexKey = (q: IndexOf) => JSON.stringify([q.indexDir, q.modelId, q.dimensions]);

/**
 * Start reading the index on disk now, for the handle's first search to take: a run reads it
 * while it collects (babel's is 23 MB) instead of waiting for it once it scores. Nothing when
 * the handle holds an index already or a read is under way.
 */
export function readIndexAhead(q: IndexOf, handle: AnnHandle): void {
  if (handle.state !== undefined || handle.ahead !== undefined) return;
  const reading = readIndexFromDisk(q);
  reading.catch(() => undefined);
  handle.ahead = { key: indexKey(q), reading };
}

/** The index a meta in `q.indexDir` names for this model, or null (none, another format or model, unreadable). */
async function readIndexFromDisk(q: IndexOf): Promise<OnDisk | null> {
  const meta = await readMeta(join(q.indexDir, `${modelSlug(q.modelId)}.json`), q);
  if (!meta) return null;
  const { HierarchicalNSW } = (await import('hnswlib-node')).default;
  const index = new HierarchicalNSW('ip', q.dimensions);
  const ok = await index.readIndex(join(q.indexDir, meta.indexFile), true).catch(() => false);
  return ok ? { meta, index } : null;
}

interface AnnState {
  indexDir: string;
  modelId: string;
  dimensions: number;
  index: Hnsw;
  meta: Meta;
  /** The key list the index was last brought in step with. */
  keys: readonly string[];
  /** Live chunk key -> its label. */
  labelOf: Map<string, number>;
}

export async function annSearch(q: AnnQuery, handle: AnnHandle = {}): Promise<AnnResult> {
  // a sync changes the index in place: never while it is being written
  await handle.saving;
  const held = handle.state;
  const reusable = held !== undefined && held.indexDir === q.indexDir && held.modelId === q.modelId && held.dimensions === q.dimensions;
  let state: AnnState;
  let changes: Omit<AnnResult, 'hits'> = { rebuilt: false, added: 0, removed: 0 };
  if (reusable && held.keys === q.keys) state = held;
  else {
    const ahead = handle.ahead?.key === indexKey(q) ? handle.ahead.reading : undefined;
    handle.ahead = undefined;
    const { save, ...synced } = await syncIndex(q, reusable ? held : undefined, ahead);
    state = synced.state;
    changes = synced;
    if (save !== undefined && handle.deferSave) handle.saving = save().catch(() => undefined);
    else if (save !== undefined) await save();
  }
  handle.state = state;

  // every live label is in labelOf, once (a deleted one is null in the meta and absent there)
  const live = state.labelOf.size;
  const k = Math.min(q.k, live);
  if (k === 0) return { hits: [], ...changes };
  state.index.setEf(Math.max(MIN_EF, 2 * k));
  const result = state.index.searchKnn(Array.from(q.query), k);
  const hits = result.neighbors
    .map((label, i) => ({ key: state.meta.labels[label] ?? '', similarity: 1 - result.distances[i]! }))
    .filter((h) => h.key !== '')
    .sort((a, b) => b.similarity - a.similarity || (a.key < b.key ? -1 : 1));
  return { hits, ...changes };
}

/** Search of an index by label: the k best live labels with their similarity (unit vectors, inner product). */
export interface LabelSearch {
  search(query: Float32Array, k: number): Array<{ label: number; similarity: number }>;
}

/**
 * The index on disk as it is (read ahead into `handle`, which keeps that read for a later
 * annSearch; else read now), for a caller that knows which index its labels belong to; null when
 * there is no such index: another file than `indexFile`, or not `live` live labels. Its search
 * gives the k best labels with their similarity, as annSearch finds them over a key set that
 * index is in step with.
 */
export async function indexAsIs(q: IndexOf & { indexFile: string; live: number }, handle: AnnHandle): Promise<LabelSearch | null> {
  const held = await onDiskAsIs(q, handle);
  return held && { search: (query, wanted) => searchLabels(held, wanted, query) };
}

/**
 * The index on disk as it is (as indexAsIs finds it), to be brought in step with a key set that
 * differs from the one it holds by a few keys, as annSearch would bring it there, without the
 * diff of the whole key set annSearch makes: the caller knows the labels that go and the keys
 * that come (alignFromChangedLabels).
 */
export interface IndexUpdate extends LabelSearch {
  /** The chunk key of a label; null when it is deleted. */
  keyOf(label: number): string | null;
  /**
   * Mark `removed` (live labels) deleted and add `added` (keys it does not hold) in sorted order,
   * each under the next label, as syncIndex does for such a change; the labels given, by key.
   * Null, and nothing changed, when syncIndex would rebuild the index instead (too many deleted).
   */
  apply(removed: readonly number[], added: readonly string[], vectorOf: (key: string) => Float32Array): Map<string, number> | null;
  /** Save the changed index (in the handle's deferred save when it defers, as annSearch saves); resolves with its new file name once written. */
  save(): Promise<string>;
}

export async function indexToUpdate(q: IndexOf & { indexFile: string; live: number }, handle: AnnHandle): Promise<IndexUpdate | null> {
  const held = await onDiskAsIs(q, handle);
  if (!held) return null;
  const { meta, index } = held;
  return {
    keyOf: (label) => meta.labels[label] ?? null,
    search: (query, wanted) => searchLabels(held, wanted, query),
    apply(removed, added, vectorOf) {
      const fresh = [...new Set(added)].sort();
      let deleted = removed.length;
      for (const key of meta.labels) if (key === null) deleted++;
      if (deleted > REBUILD_DELETED_FRACTION * (meta.labels.length + fresh.length)) return null;
      for (const label of removed) {
        index.markDelete(label);
        meta.labels[label] = null;
      }
      held.live -= removed.length;
      const needed = meta.labels.length + fresh.length;
      if (fresh.length > 0 && needed > index.getMaxElements()) index.resizeIndex(Math.ceil(needed * 1.25));
      const labels = new Map<string, number>();
      for (const key of fresh) {
        index.addPoint(Array.from(vectorOf(key)), meta.labels.length);
        labels.set(key, meta.labels.length);
        meta.labels.push(key);
      }
      held.live += fresh.length;
      return labels;
    },
    async save() {
      const saving = persist(q.indexDir, modelSlug(q.modelId), index, meta);
      if (handle.deferSave) handle.saving = saving.catch(() => undefined);
      await saving;
      return meta.indexFile;
    },
  };
}

/**
 * Take the index a handle holds (searched, or read ahead) out of it, for a caller that searches
 * it no more (a one-shot run after its search): the next search reads the index from disk. The
 * function returned frees the index; call it once the index and its labels are written.
 * hnswlib frees an index only when V8 collects its wrapper, which V8, not told of the index's
 * size, may put off past the rest of the run: re-initialising it to one element frees the old
 * one at once (~60 MB for 109k chunks of 100 dimensions).
 */
export function detachAnnIndex(handle: AnnHandle): () => Promise<void> {
  const held = handle.state?.index;
  const ahead = handle.ahead?.reading;
  handle.state = undefined;
  handle.ahead = undefined;
  return async () => {
    const read = await ahead?.catch(() => null);
    for (const index of new Set([held, read?.index])) {
      index?.initIndex({ maxElements: 1, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: HNSW_SEED, allowReplaceDeleted: false });
    }
  };
}

/** The index read ahead into the handle (or now) when it is `q.indexFile` with `q.live` live labels; null otherwise, or when the handle holds an index already. */
async function onDiskAsIs(q: IndexOf & { indexFile: string; live: number }, handle: AnnHandle): Promise<(OnDisk & { live: number }) | null> {
  if (handle.state !== undefined) return null;
  if (handle.ahead?.key !== indexKey(q)) readIndexAhead(q, handle);
  const onDisk = await handle.ahead!.reading.catch(() => null);
  if (!onDisk || onDisk.meta.indexFile !== q.indexFile) return null;
  let live = 0;
  for (const key of onDisk.meta.labels) if (key !== null) live++;
  return live === q.live ? { ...onDisk, live } : null;
}

/** The k best live labels of an index for a query, as annSearch searches it (ef, its k capped at the live labels). */
function searchLabels(held: OnDisk & { live: number }, wanted: number, query: Float32Array): Array<{ label: number; similarity: number }> {
  const k = Math.min(wanted, held.live);
  if (k === 0) return [];
  held.index.setEf(Math.max(MIN_EF, 2 * k));
  const result = held.index.searchKnn(Array.from(query), k);
  const hits: Array<{ label: number; similarity: number }> = [];
  result.neighbors.forEach((label, i) => {
    if (held.meta.labels[label] != null) hits.push({ label, similarity: 1 - result.distances[i]! });
  });
  return hits;
}

/** Bring an index (the held one, else the one on disk, else a new one) in step with `q.keys`; `save` writes it when it changed. */
async function syncIndex(
  q: AnnQuery,
  held: AnnState | undefined,
  ahead: Promise<OnDisk | null> | undefined,
): Promise<{ state: AnnState; rebuilt: boolean; added: number; removed: number; save?: () => Promise<void> }> {
  const { HierarchicalNSW } = (await import('hnswlib-node')).default;
  const slug = modelSlug(q.modelId);

  let index: Hnsw | null = held?.index ?? null;
  let meta: Meta | null = held?.meta ?? null;
  if (!held) {
    const onDisk = await (ahead ?? readIndexFromDisk(q));
    index = onDisk?.index ?? null;
    meta = onDisk?.meta ?? null;
  }

  let added = 0;
  let removed = 0;
  let rebuilt = false;
  let labelOf = new Map<string, number>();

  if (index && meta) {
    let fresh: string[];
    if (held !== undefined && q.changes !== undefined && q.changes.from === held.keys) {
      // the held index holds exactly `from`: its removed keys go, its added ones come
      labelOf = held.labelOf;
      const gone = new Set(q.changes.removed);
      for (const key of gone) {
        const label = labelOf.get(key);
        if (label === undefined) continue;
        index.markDelete(label);
        meta.labels[label] = null;
        labelOf.delete(key);
        removed++;
      }
      fresh = [...new Set(q.changes.added)].filter((key) => !labelOf.has(key)).sort();
    } else {
      const current = new Set(q.keys);
      meta.labels.forEach((key, label) => {
        if (key === null) return;
        if (current.has(key)) labelOf.set(key, label);
        else {
          index!.markDelete(label);
          meta!.labels[label] = null;
          removed++;
        }
      });
      // only the keys to add are sorted (a warm run adds none of its 100k+)
      fresh = [...current].filter((key) => !labelOf.has(key)).sort();
    }
    let deleted = 0;
    for (const key of meta.labels) if (key === null) deleted++;
    if (deleted > REBUILD_DELETED_FRACTION * (meta.labels.length + fresh.length)) {
      index = null;
    } else if (fresh.length > 0) {
      const needed = meta.labels.length + fresh.length;
      if (needed > index.getMaxElements()) index.resizeIndex(Math.ceil(needed * 1.25));
      for (const key of fresh) {
        index.addPoint(Array.from(q.vectorOf(key)), meta.labels.length);
        labelOf.set(key, meta.labels.length);
        meta.labels.push(key);
      }
      added = fresh.length;
    }
  }
  if (!index || !meta) {
    // the whole key set, sorted: a new index labels them in this order
    const keys = [...new Set(q.keys)].sort();
    index = new HierarchicalNSW('ip', q.dimensions);
    index.initIndex({ maxElements: Math.max(16, keys.length), m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: HNSW_SEED, allowReplaceDeleted: false });
    keys.forEach((key, label) => index!.addPoint(Array.from(q.vectorOf(key)), label));
    meta = { format: ANN_FORMAT_VERSION, modelId: q.modelId, dimensions: q.dimensions, indexFile: '', labels: [...keys] };
    labelOf = new Map(keys.map((key, label) => [key, label]));
    rebuilt = true;
    added = keys.length;
  }
  const state: AnnState = { indexDir: q.indexDir, modelId: q.modelId, dimensions: q.dimensions, index, meta, keys: q.keys, labelOf };
  const save = rebuilt || added > 0 || removed > 0 ? () => persist(q.indexDir, slug, state.index, state.meta) : undefined;
  return { state, rebuilt, added, removed, ...(save ? { save } : {}) };
}

/**
 * The files in `indexDir` this module wrote: each meta (`<slug>.json` holding our meta), the index
 * files of its slug, and the temp files of a writer that died.
 */
export async function annIndexFiles(indexDir: string): Promise<string[]> {
  const names = await readdir(indexDir).catch(() => [] as string[]);
  const slugs: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    try {
      const meta = JSON.parse(await readFile(join(indexDir, name), 'utf8')) as Partial<Meta>;
      if (typeof meta.format === 'number' && typeof meta.modelId === 'string' && typeof meta.indexFile === 'string' && Array.isArray(meta.labels)) slugs.push(name.slice(0, -'.json'.length));
    } catch {
      // not ours
    }
  }
  const escaped = slugs.map((slug) => slug.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (escaped.length === 0) return [];
  const ours = new RegExp(`^(?:${escaped.join('|')})(?:\\.json|\\.json\\.[0-9a-f]{12}\\.tmp|-[0-9a-f]{12}\\.hnsw(?:\\.tmp)?)$`);
  return names.filter((name) => ours.test(name)).map((name) => join(indexDir, name));
}

async function readMeta(metaPath: string, q: IndexOf): Promise<Meta | null> {
  try {
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as Meta;
    const valid =
      meta.format === ANN_FORMAT_VERSION &&
      meta.modelId === q.modelId &&
      meta.dimensions === q.dimensions &&
      typeof meta.indexFile === 'string' &&
      Array.isArray(meta.labels);
    return valid ? meta : null;
  } catch {
    return null;
  }
}

async function persist(indexDir: string, slug: string, index: Hnsw, meta: Meta): Promise<void> {
  await mkdir(indexDir, { recursive: true });
  const previous = meta.indexFile;
  const token = randomBytes(6).toString('hex');
  meta.indexFile = `${slug}-${token}.hnsw`;
  const tmpIndex = join(indexDir, `${meta.indexFile}.tmp`);
  const tmpMeta = join(indexDir, `${slug}.json.${token}.tmp`);
  try {
    await index.writeIndex(tmpIndex);
    await rename(tmpIndex, join(indexDir, meta.indexFile));
    await writeFile(tmpMeta, `${JSON.stringify(meta)}\n`);
    await rename(tmpMeta, join(indexDir, `${slug}.json`));
  } finally {
    await rm(tmpIndex, { force: true });
    await rm(tmpMeta, { force: true });
  }
  // Remove superseded index files of this model (a concurrent reader that lost its file rebuilds).
  const names = await readdir(indexDir).catch(() => [] as string[]);
  const ours = new RegExp(`^${slug.replace(/[.]/g, '\\.')}-[0-9a-f]{12}\\.hnsw$`);
  await Promise.all(
    names
      .filter((n) => ours.test(n) && n !== meta.indexFile && (n === previous || previous === ''))
      .map((n) => rm(join(indexDir, n), { force: true })),
  );
}
