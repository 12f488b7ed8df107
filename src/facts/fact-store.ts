import { indexDirOf } from '../cache/cache-dir.js';
import { REDACTION_VERSION } from '../security/redact-secrets.js';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { decodeFramed, encodeFramed } from '../util/framed-file.js';

/**
 * The persisted index: per-blob facts, content-addressed, in ONE file loaded with one read.
 *
 * File: the frame of util/framed-file.ts (magic "AIWGIDX1", format version, length, crc32) around
 * the maps below. Written to a temp file and
 * renamed, so readers see the old index or the new one, never half of one. A bad magic,
 * version, length, checksum or payload is a miss: the store starts empty and says so in
 * `corrupt`, and the next save replaces the file. Two processes saving at once: the last
 * rename wins and the other's new facts are simply extracted again next time.
 *
 * Keys: content facts by `kind@version:pathKey` then blob hash; collect facts by blob id +
 * basename + options (see collectFactKey); stat entries per root real path; commit times per
 * repository prefix and HEAD (history is content-addressed too, so a new clone reuses them).
 */
export const FACT_STORE_VERSION = 1;
const MAGIC = Buffer.from('AIWGIDX1', 'latin1');
/** Entries kept per map when the store is pruned: beyond this, only what this process used survives a save. */
export const MAX_ENTRIES_PER_MAP = 250_000;
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
}

interface Payload {
  facts: Map<string, Map<string, unknown>>;
  collect: Map<string, CollectFact>;
  stats: Map<string, Map<string, StatEntry>>;
  commits: Map<string, CommitTimes[]>;
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
export async function openFactStore(path: string): Promise<FactStore> {
  let data: Buffer | undefined;
  try {
    data = await readFile(path);
  } catch {
    data = undefined;
  }
  const { payload, problem } = data === undefined ? { payload: emptyPayload(), problem: undefined } : decode(data);
  return createFactStore(path, payload, problem);
}

/** An empty in-memory store that saves to `path` (tests, a first run). */
export function emptyFactStore(path: string): FactStore {
  return createFactStore(path, emptyPayload(), undefined);
}

function createFactStore(path: string, payload: Payload, corrupt: string | undefined): FactStore {
  let dirty = corrupt !== undefined;
  const touched = new WeakMap<Map<string, unknown>, Set<string>>();
  const touch = (map: Map<string, unknown>, key: string) => {
    let set = touched.get(map);
    if (!set) touched.set(map, (set = new Set()));
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
    if (map.size <= MAX_ENTRIES_PER_MAP) return;
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
      map.set(hash, value);
      touch(map, hash);
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
      dirty = true;
    },
    stat: (rootReal, path) => payload.stats.get(rootReal)?.get(path),
    setStat(rootReal, path, entry) {
      statMap(rootReal).set(path, entry);
      dirty = true;
    },
    retainStats(rootReal, keep) {
      const map = payload.stats.get(rootReal);
      if (!map) return;
      for (const path of map.keys()) {
        if (!keep.has(path)) {
          map.delete(path);
          dirty = true;
        }
      }
    },
    commitTimes: (prefixKey) => payload.commits.get(prefixKey) ?? [],
    putCommitTimes(prefixKey, entry) {
      const list = (payload.commits.get(prefixKey) ?? []).filter((e) => e.head !== entry.head);
      payload.commits.set(prefixKey, [entry, ...list].slice(0, MAX_COMMIT_HEADS));
      dirty = true;
    },
    get dirty() {
      return dirty;
    },
    async save() {
      if (!dirty) return;
      for (const map of payload.facts.values()) prune(map);
      prune(payload.collect);
      await writeFileAtomic(path, encode(payload));
      await ensureSelfIgnored(dirname(path));
      dirty = false;
    },
  };
}

/** The index directory ignores itself, so git never lists the store as an untracked file of the repository. */
async function ensureSelfIgnored(dir: string): Promise<void> {
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) await writeFileAtomic(ignore, '# written by aiwg: the persisted index is a cache\n*\n');
}

function emptyPayload(): Payload {
  return { facts: new Map(), collect: new Map(), stats: new Map(), commits: new Map() };
}

export function encode(payload: Payload): Buffer {
  return encodeFramed(MAGIC, FACT_STORE_VERSION, payload);
}

function decode(data: Buffer): { payload: Payload; problem?: string } {
  const miss = (problem: string) => ({ payload: emptyPayload(), problem });
  const framed = decodeFramed(data, MAGIC, FACT_STORE_VERSION, 'aiwg index file');
  if ('problem' in framed) return miss(framed.problem);
  const value = framed.value as Partial<Payload>;
  if (!(value.facts instanceof Map && value.collect instanceof Map && value.stats instanceof Map && value.commits instanceof Map)) return miss('unexpected content');
  return { payload: value as Payload };
}
