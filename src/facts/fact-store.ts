import { indexDirOf } from '../cache/cache-dir.js';
import { REDACTION_VERSION } from '../security/redact-secrets.js';
import { open, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { appendFrame, decodeFrameAt, eachAppendedFrame, encodeFramed } from '../util/framed-file.js';
import { isTextColumn, loadTextColumn, persistedFacts } from './text-column.js';

/**
 * The persisted index: per-blob facts, content-addressed, in ONE file loaded with one read.
 *
 * File: the frame of util/framed-file.ts (magic "AIWGIDX1", format version, length, crc32) around
 * the maps below (the base), then the deltas of later saves, each its own frame (magic
 * "AIWGIDXD") holding what changed. A save that adds a little (a checkout's new blobs, an edit)
 * appends one delta in one write instead of re-encoding the whole store (20 MB and ~60 ms for
 * babel's 27k files); once the deltas outgrow MAX_DELTA_SHARE of the base or reach MAX_DELTAS,
 * or entries must be pruned, the save rewrites the base: to a temp file, renamed, so readers see the old index or
 * the new one, never half of one. A bad base (magic, version, length, checksum or payload) is a
 * miss: the store starts empty and says so in `corrupt`, and the next save replaces the file. A
 * bad delta (a torn tail, flipped bits) is skipped, and the next save rewrites the base. Two
 * processes saving at once: deltas are appended whole (O_APPEND, one write), so both survive;
 * against a rewrite the last rename wins and the other's new facts are simply extracted again.
 * A version that predates deltas reads a file with deltas as damaged and rewrites it: a miss.
 *
 * Keys: content facts by `kind@version:pathKey` then blob hash; collect facts by blob id +
 * basename + options (see collectFactKey); stat entries per root real path; commit times per
 * repository prefix and HEAD (history is content-addressed too, so a new clone reuses them).
 */
/**
 * 2: commit times come from walks that keep every parent of a merge, and remember how far HEAD reaches.
 * 3: a kind of text facts (the BM25 terms) is stored as one column (facts/text-column.ts).
 */
export const FACT_STORE_VERSION = 3;
/** The first bytes of the store file (its base frame). */
export const FACT_STORE_MAGIC = Buffer.from('AIWGIDX1', 'latin1');
const MAGIC = FACT_STORE_MAGIC;
const DELTA_MAGIC = Buffer.from('AIWGIDXD', 'latin1');
/**
 * Deltas may grow to this share of the base's bytes before a save rewrites the whole store. As
 * large as the base: a checkout 20 commits back of vite adds 1.75 MB of facts to a 4.1 MB store,
 * and appending them encodes only those (the whole store took ~47 ms here). Deltas are mostly new
 * content-addressed entries, so a file of base and deltas is about as large as its rewrite would be.
 */
export const MAX_DELTA_SHARE = 1;
/** Deltas kept at most before a save rewrites the whole store: a file of many small ones (a server saving after each edit) loads one frame each. */
export const MAX_DELTAS = 256;
/** Entries kept per map when the store is pruned: beyond this, only what this process used survives a save. */
export const MAX_ENTRIES_PER_MAP = 250_000;

export interface FactStoreLimits {
  /** MAX_ENTRIES_PER_MAP unless a test sets it. */
  maxEntriesPerMap: number;
}
/** Commit-time maps kept per repository prefix (HEADs recently indexed). */
const MAX_COMMIT_HEADS = 4;

/** What the collect stage learns from reading a blob once: whether it is a candidate, and its text facts. */
export interface CollectFact {
  /** Content rule that refused the file (binary, generated, a private key...), or absent. */
  excluded?: string;
  lineCount: number;
  /** CandidateFile.hash: the blob id, or the hash of the redacted text. */
  hash: string;
  /** Kinds of credentials redacted in the content. */
  redacted?: string[];
  /** Where they are (kind, start, end in the decoded text), so a lazy read redacts without rescanning. */
  findings?: Array<[string, number, number]>;
  /** Bytes of the blob (absent in facts written before it was kept): a file git vouches for needs no stat. */
  size?: number;
}

/** A file outside git's view (untracked, modified, or no repository): its blob id, valid while the stat is unchanged. */
export interface StatEntry {
  size: number;
  mtimeMs: number;
  ino: number;
  /** Absent in entries written before it was part of the key: such an entry never matches. */
  ctimeMs?: number;
  blob: string;
}

export interface CommitTimes {
  head: string;
  /** Last commit time per root-relative path, epoch ms. */
  times: Map<string, number>;
  /** When known, an upper bound on the commits `head` reaches (see cachedCommitTimes). */
  reach?: number;
  /** The first commits of the walk from `head` when kept, packed (collect/recent-history.ts). */
  recent?: Uint8Array;
}

interface Payload {
  facts: Map<string, Map<string, unknown>>;
  collect: Map<string, CollectFact>;
  stats: Map<string, Map<string, StatEntry>>;
  commits: Map<string, CommitTimes[]>;
}

/** What one save changed, in order: applied over the base (and the deltas before it) on load. */
interface Delta {
  facts: Array<[kindKey: string, hash: string, value: unknown]>;
  collect: Array<[key: string, fact: CollectFact]>;
  /** null: the entry was dropped. */
  stats: Array<[rootReal: string, path: string, entry: StatEntry | null]>;
  commits: Array<[prefixKey: string, entry: CommitTimes]>;
}

/** The file as this process last read or wrote it: where a delta may be appended. */
interface OnDisk {
  ino: number;
  /** Bytes of the base frame. */
  baseBytes: number;
  /** Deltas after the base: those read, and those this process appended since. */
  deltas: number;
}

export interface FactStore {
  readonly path: string;
  /** Why the file on disk was ignored (corrupt, other version), or undefined. */
  readonly corrupt: string | undefined;
  getFact(kindKey: string, hash: string): unknown;
  putFact(kindKey: string, hash: string, value: unknown): void;
  getCollect(key: string): CollectFact | undefined;
  putCollect(key: string, fact: CollectFact): void;
  /** The stat table of one root (mutable; changes mark the store dirty through setStat/deleteStat). */
  stat(rootReal: string, path: string): StatEntry | undefined;
  setStat(rootReal: string, path: string, entry: StatEntry): void;
  /** Drop the entries of a root's paths that are not in `keep`. */
  retainStats(rootReal: string, keep: ReadonlySet<string>): void;
  commitTimes(prefixKey: string): readonly CommitTimes[];
  putCommitTimes(prefixKey: string, entry: CommitTimes): void;
  readonly dirty: boolean;
  /** Write the store if anything changed since it was loaded or last saved. */
  save(): Promise<void>;
}

/** The store file under a cache directory (resolveCacheDir): shared by every root that uses that directory. */
export function factStorePath(cacheDir: string): string {
  return join(indexDirOf(cacheDir), 'facts.bin');
}

/** Key of a blob's collect fact: content rules look at the basename (.npmrc) and the secrets option. */
export function collectFactKey(blob: string, basename: string, includeSecrets: boolean): string {
  // The redaction version: facts written under other secret rules are misses.
  return `${blob}\0${basename}\0${includeSecrets ? 1 : 0}\0r${REDACTION_VERSION}`;
}

/** Load the store (one read); a missing file is an empty store, a damaged one an empty store with `corrupt` set. */
export async function openFactStore(path: string, limits?: FactStoreLimits): Promise<FactStore> {
  let data: Buffer | undefined;
  let ino = 0;
  try {
    const handle = await open(path, 'r');
    try {
      ino = (await handle.stat()).ino;
      data = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    data = undefined;
  }
  if (data === undefined) return createFactStore(path, emptyPayload(), undefined, undefined, limits);
  const decoded = decode(data);
  if ('problem' in decoded) return createFactStore(path, emptyPayload(), decoded.problem, undefined, limits);
  // a damaged delta: what it held is extracted again, and the next save rewrites the file without it
  const onDisk = decoded.deltasIntact ? { ino, baseBytes: decoded.baseBytes, deltas: decoded.deltas } : undefined;
  return createFactStore(path, decoded.payload, undefined, onDisk, limits);
}

/** An empty in-memory store that saves to `path` (tests, a first run). */
export function emptyFactStore(path: string, limits?: FactStoreLimits): FactStore {
  return createFactStore(path, emptyPayload(), undefined, undefined, limits);
}

function createFactStore(path: string, payload: Payload, corrupt: string | undefined, loaded: OnDisk | undefined, limits: FactStoreLimits = { maxEntriesPerMap: MAX_ENTRIES_PER_MAP }): FactStore {
  const maxEntries = limits.maxEntriesPerMap;
  let dirty = corrupt !== undefined;
  let onDisk = loaded;
  // since the last load or save, what a delta would hold; nothing while there is no file to append
  // to (a cold run: its save writes the whole store anyway)
  let delta = emptyDelta();
  const statChanged = (rootReal: string, path: string, entry: StatEntry | null) => {
    if (onDisk) delta.stats.push([rootReal, path, entry]);
    dirty = true;
  };
  // What this process used, per map, for a prune. Kept only for a map past half the cap (babel's
  // maps hold ~21k entries: recording its 100k reads of a warm run took ~70 ms): from the start
  // for a map loaded that large; for one that grows that large here, from every key it holds
  // then (a superset of what was used), so a prune never drops a key this process used.
  const watched = (map: Map<string, unknown>) => map.size * 2 >= maxEntries;
  const largeFromLoad = new WeakSet<Map<string, unknown>>([payload.collect, ...payload.facts.values()].filter(watched));
  const touched = new WeakMap<Map<string, unknown>, Set<string>>();
  const touch = (map: Map<string, unknown>, key: string) => {
    if (!watched(map)) return;
    let set = touched.get(map);
    if (!set) touched.set(map, (set = largeFromLoad.has(map) ? new Set() : new Set(map.keys())));
    set.add(key);
  };
  const factMap = (kindKey: string, create: boolean) => {
    let map = payload.facts.get(kindKey);
    if (!map && create) payload.facts.set(kindKey, (map = new Map()));
    return map;
  };
  const statMap = (rootReal: string) => {
    let map = payload.stats.get(rootReal);
    if (!map) payload.stats.set(rootReal, (map = new Map()));
    return map;
  };
  const prune = (map: Map<string, unknown>) => {
    if (map.size <= maxEntries) return;
    const keep = touched.get(map) ?? new Set();
    for (const key of map.keys()) if (!keep.has(key)) map.delete(key);
  };
  return {
    path,
    corrupt,
    getFact(kindKey, hash) {
      const map = factMap(kindKey, false);
      const value = map?.get(hash);
      if (value !== undefined) touch(map as Map<string, unknown>, hash);
      return value;
    },
    putFact(kindKey, hash, value) {
      const map = factMap(kindKey, true) as Map<string, unknown>;
      // A copy of its own: a name a regular expression cut out of a file's text is a slice that
      // holds the whole text in memory (~75 MB of a cold run over 20,000 files), and the copy
      // is the value a later run reads back from disk.
      const own = structuredClone(value);
      map.set(hash, own);
      touch(map, hash);
      if (onDisk) delta.facts.push([kindKey, hash, own]);
      dirty = true;
    },
    getCollect(key) {
      const fact = payload.collect.get(key);
      if (fact) touch(payload.collect, key);
      return fact;
    },
    putCollect(key, fact) {
      payload.collect.set(key, fact);
      touch(payload.collect, key);
      if (onDisk) delta.collect.push([key, fact]);
      dirty = true;
    },
    stat: (rootReal, path) => payload.stats.get(rootReal)?.get(path),
    setStat(rootReal, path, entry) {
      statMap(rootReal).set(path, entry);
      statChanged(rootReal, path, entry);
    },
    retainStats(rootReal, keep) {
      const map = payload.stats.get(rootReal);
      if (!map) return;
      for (const path of map.keys()) {
        if (!keep.has(path)) {
          map.delete(path);
          statChanged(rootReal, path, null);
        }
      }
    },
    commitTimes: (prefixKey) => payload.commits.get(prefixKey) ?? [],
    putCommitTimes(prefixKey, entry) {
      addCommitTimes(payload, prefixKey, entry);
      if (onDisk) delta.commits.push([prefixKey, entry]);
      dirty = true;
    },
    get dirty() {
      return dirty;
    },
    async save() {
      if (!dirty) return;
      const appended = onDisk !== undefined && !mustPrune() && (await appendDelta(path, onDisk, delta));
      if (!appended) {
        for (const map of payload.facts.values()) prune(map);
        prune(payload.collect);
        const data = encode(payload);
        await writeFileAtomic(path, data);
        onDisk = await stat(path).then(
          (info) => ({ ino: info.ino, baseBytes: data.length, deltas: 0 }),
          () => undefined,
        );
        await ensureSelfIgnored(dirname(path));
      }
      delta = emptyDelta();
      dirty = false;
    },
  };

  function mustPrune(): boolean {
    return payload.collect.size > maxEntries || [...payload.facts.values()].some((map) => map.size > maxEntries);
  }
}

/**
 * Append `delta` to the file this process last read or wrote, in one write, when that is still
 * the file at `path`, the deltas stay under MAX_DELTA_SHARE of its base and fewer than
 * MAX_DELTAS (counted in `onDisk`); false when the caller must rewrite the whole store.
 */
async function appendDelta(path: string, onDisk: OnDisk, delta: Delta): Promise<boolean> {
  if (onDisk.deltas >= MAX_DELTAS) return false;
  const record = encodeFramed(DELTA_MAGIC, FACT_STORE_VERSION, delta);
  // not when another process rewrote the store, or the deltas would outgrow the base
  const appended = await appendFrame(path, record, ({ ino, size }) => ino === onDisk.ino && size >= onDisk.baseBytes && size - onDisk.baseBytes + record.length <= MAX_DELTA_SHARE * onDisk.baseBytes);
  if (appended) onDisk.deltas++;
  return appended;
}

/** The index directory ignores itself, so git never lists the store as an untracked file of the repository. */
async function ensureSelfIgnored(dir: string): Promise<void> {
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) await writeFileAtomic(ignore, '# written by aiwg: the persisted index is a cache\n*\n');
}

function emptyPayload(): Payload {
  return { facts: new Map(), collect: new Map(), stats: new Map(), commits: new Map() };
}

function emptyDelta(): Delta {
  return { facts: [], collect: [], stats: [], commits: [] };
}

/** The base frame: each fact kind's map as it is, or as a column when it holds text facts (persistedFacts). */
export function encode(payload: Payload): Buffer {
  const facts = new Map([...payload.facts].map(([kindKey, map]) => [kindKey, persistedFacts(map)]));
  return encodeFramed(MAGIC, FACT_STORE_VERSION, { ...payload, facts });
}

/** The base and every intact delta after it, in order; `deltasIntact` is false when one was skipped. */
function decode(data: Buffer): { payload: Payload; baseBytes: number; deltas: number; deltasIntact: boolean } | { problem: string } {
  const base = decodeFrameAt(data, 0, MAGIC, FACT_STORE_VERSION, 'aiwg index file');
  if ('problem' in base) return base;
  const payload = base.value as Partial<Payload>;
  if (!(payload.facts instanceof Map && payload.collect instanceof Map && payload.stats instanceof Map && payload.commits instanceof Map)) return { problem: 'unexpected content' };
  for (const [kindKey, stored] of payload.facts as Map<string, unknown>) {
    const map = stored instanceof Map ? stored : isTextColumn(stored) ? loadTextColumn(stored) : null;
    if (map === null) return { problem: `unexpected content (facts of ${kindKey})` };
    payload.facts.set(kindKey, map);
  }
  // a damaged delta is skipped
  let deltas = 0;
  const { intact: deltasIntact } = eachAppendedFrame(data, base.end, DELTA_MAGIC, FACT_STORE_VERSION, 'aiwg index delta', (value) => {
    if (!isDelta(value)) return false;
    applyDelta(payload as Payload, value);
    deltas++;
    return true;
  });
  return { payload: payload as Payload, baseBytes: base.end, deltas, deltasIntact };
}

function isDelta(value: unknown): value is Delta {
  const d = value as Partial<Delta> | null;
  return d !== null && typeof d === 'object' && Array.isArray(d.facts) && Array.isArray(d.collect) && Array.isArray(d.stats) && Array.isArray(d.commits);
}

function applyDelta(payload: Payload, delta: Delta): void {
  for (const [kindKey, hash, value] of delta.facts) {
    let map = payload.facts.get(kindKey);
    if (!map) payload.facts.set(kindKey, (map = new Map()));
    map.set(hash, value);
  }
  for (const [key, fact] of delta.collect) payload.collect.set(key, fact);
  for (const [rootReal, path, entry] of delta.stats) {
    let map = payload.stats.get(rootReal);
    if (entry === null) map?.delete(path);
    else {
      if (!map) payload.stats.set(rootReal, (map = new Map()));
      map.set(path, entry);
    }
  }
  for (const [prefixKey, entry] of delta.commits) addCommitTimes(payload, prefixKey, entry);
}

/** A HEAD's commit times become the newest of their prefix; the oldest beyond MAX_COMMIT_HEADS go. */
function addCommitTimes(payload: Payload, prefixKey: string, entry: CommitTimes): void {
  const list = (payload.commits.get(prefixKey) ?? []).filter((e) => e.head !== entry.head);
  payload.commits.set(prefixKey, [entry, ...list].slice(0, MAX_COMMIT_HEADS));
}
