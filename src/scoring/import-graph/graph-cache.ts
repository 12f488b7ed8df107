import { join } from 'node:path';
import type { CandidateFile } from '../../types.js';
import { indexDirOf } from '../../cache/cache-dir.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { encodeFramed, readFramedSync } from '../../util/framed-file.js';
import { edgeMaps, resolveKeptGraph, watchedBy, type ImportGraph, type Watches } from './index.js';
import { buildProjectIndex, pathChangeKeys, stillHolds, type ConfigRead } from './project.js';
import { fileListDigest } from '../../util/hash.js';
import { diffFiles } from '../derived.js';

/**
 * The import graph of the last one-shot run, kept in `<cache dir>/index/import-graph.bin`, so a
 * warm run over the same files takes it instead of resolving every file's imports again (babel's
 * 27k files: ~200 ms). A graph is a function of the candidate files alone (the resolvers see only
 * their paths and, through the project index, their contents: config files are candidates too)
 * and of the resolvers' code, so it is keyed by every candidate's path and content hash and by
 * IMPORT_GRAPH_VERSION, which goes up with any change to a resolver. Over other files (a
 * checkout, an edit, files added or removed), the kept graph is updated: the changed and added
 * files are resolved again, and so are the files whose resolution watched what changed (a lookup
 * in a directory that gained or lost a file, a config read that no longer holds: watchResolution),
 * the rest keep their edges (resolveKeptGraph). Another version or a damaged file is a miss, never
 * an error. Edges are stored as positions in the kept candidate list. A long-lived process keeps
 * its graph in memory and updates it (derived.ts): it never reads this.
 */
/** 3: the hashes in one buffer, and a config read keeps a content lookup as the file's hash, not its text. */
export const IMPORT_GRAPH_VERSION = 3;
/** The first bytes of the kept graph's file. */
export const IMPORT_GRAPH_MAGIC = Buffer.from('AIWGIMP1', 'latin1');
const MAGIC = IMPORT_GRAPH_MAGIC;
const FILE_NAME = 'import-graph.bin';
/** Above this share of changed, added and removed files the kept graph is not updated: a full build is no slower. */
const MAX_CHANGED_SHARE = 0.25;

type KeptGraph = Pick<ImportGraph, 'imports' | 'importers' | 'warnings'>;

export interface ImportGraphCache {
  /** The graph of exactly these files (in this order), from the kept one, or undefined: build it. */
  load(files: readonly CandidateFile[]): KeptGraph | undefined;
  /** Keep `graph` as the graph of `files` (written in the background; a failure only costs the next run a build). */
  save(files: readonly CandidateFile[], graph: ImportGraph): void;
  /** Resolves once the last write `load` or `save` started is done (a one-shot run awaits it before it ends). Never rejects. */
  written(): Promise<void>;
}

interface Stored {
  key: string;
  /** The candidate paths, in order, each ended by a NUL (one buffer: cheap to load, split only when the paths changed). */
  paths: Buffer;
  /** Each candidate's content hash, in order, each ended by a NUL (one buffer, as `paths`: a warm run never splits it). */
  hashes: Buffer;
  /** Per file with edges: its position, its edge count, then its targets' positions. */
  edges: Uint32Array;
  /** The warnings resolving each file raised, by position. */
  fileWarnings: Array<[position: number, warnings: string[]]>;
  /** The lookups of every config read (their values are functions: read again on use), by key. */
  configs: Array<[key: string, read: KeptRead]>;
  warnings: string[];
  /** What each resolution watched (watchResolution): per key, the positions of the files that recorded it, from `ends[i-1]` to `ends[i]` in `files`. */
  watches: { keys: string[]; ends: Uint32Array; files: Uint32Array };
}

type KeptRead = Pick<ConfigRead, 'lookups'>;

export function importGraphCache(cacheDir: string): ImportGraphCache {
  const path = join(indexDirOf(cacheDir), FILE_NAME);
  let writing: Promise<void> = Promise.resolve();
  const keep = (files: readonly CandidateFile[], graph: ImportGraph, reads?: ReadonlyMap<string, KeptRead>, paths?: Buffer): void => {
    const stored = storedGraph(files, graph, reads, paths);
    if (stored === undefined) return;
    let data: Buffer;
    try {
      data = encodeFramed(MAGIC, IMPORT_GRAPH_VERSION, stored);
    } catch {
      return;
    }
    writing = writeFileAtomic(path, data).catch(() => undefined);
  };
  return {
    load(files) {
      const stored = readFramedSync(path, MAGIC, IMPORT_GRAPH_VERSION, 'aiwg import graph') as Partial<Stored> | undefined;
      if (!isStored(stored)) return undefined;
      if (stored.key === keyOf(files)) {
        const kept = keptEdges(files.map((file) => file.path), stored.edges);
        return kept && { ...edgeMaps(files, kept), warnings: stored.warnings };
      }
      // other files: resolve again what may resolve otherwise
      const paths = pathsBuffer(files);
      const diff = paths.equals(stored.paths) ? contentChanges(files, stored.hashes) : pathChanges(files, stored);
      if (diff === undefined) return undefined;
      const { keptPaths, added, changed, removed } = diff;
      if (added.length + changed.length + removed.length > MAX_CHANGED_SHARE * files.length) return undefined;
      const imports = keptEdges(keptPaths, stored.edges);
      const watches = keptWatches(keptPaths, stored.watches);
      if (!imports || !watches) return undefined;
      const project = buildProjectIndex(files);
      const reads = new Map(stored.configs);
      const failed = [...reads].filter(([, read]) => !stillHolds(read, project)).map(([key]) => key);
      const again = watchedBy(watches, pathChangeKeys({ added, removed, changed }, failed), new Set([...added, ...changed]));
      const fileWarnings = new Map(stored.fileWarnings.map(([position, warnings]) => [keptPaths[position] ?? '', warnings]));
      const graph = resolveKeptGraph(files, project, { imports, fileWarnings, watches }, again, removed);
      // the reads the other files were resolved through hold still, and are kept with the new ones
      for (const key of failed) reads.delete(key);
      keep(files, graph, new Map([...reads, ...graph.basis!.project.configs]), paths);
      return graph;
    },
    save: (files, graph) => keep(files, graph),
    written: () => writing,
  };
}

interface KeptDiff {
  /** The kept graph's paths, in its order (its positions). */
  keptPaths: readonly string[];
  added: string[];
  changed: string[];
  removed: string[];
}

/** The kept graph's files are these paths in this order (an edit changed contents alone): the changed files, by position; undefined when the hashes do not fit. */
function contentChanges(files: readonly CandidateFile[], keptHashes: Buffer): KeptDiff | undefined {
  const hashes = keptHashes.toString('latin1').split('\0');
  if (hashes.length !== files.length + 1) return undefined;
  const changed: string[] = [];
  files.forEach((file, i) => {
    if (file.hash !== hashes[i]) changed.push(file.path);
  });
  return { keptPaths: files.map((file) => file.path), added: [], changed, removed: [] };
}

/** How `files` differ from the kept graph's files by path (diffFiles: one walk of both lists in collect's path order); undefined when its lists do not fit. */
function pathChanges(files: readonly CandidateFile[], stored: Stored): KeptDiff | undefined {
  const keptPaths = stored.paths.toString('utf8').split('\0').slice(0, -1);
  const hashes = stored.hashes.toString('latin1').split('\0').slice(0, -1);
  if (keptPaths.length !== hashes.length) return undefined;
  const changes = diffFiles(keptPaths.map((path, i) => ({ path, hash: hashes[i]! })), files);
  return {
    keptPaths,
    added: changes.added.map((file) => file.path),
    changed: changes.changed.map(({ after }) => after.path),
    removed: changes.removed.map((kept) => kept.path),
  };
}

/** The `paths` of a kept graph: each candidate's path ended by a NUL, in order. */
function pathsBuffer(files: readonly CandidateFile[]): Buffer {
  return Buffer.from(files.map((file) => `${file.path}\0`).join(''), 'utf8');
}

/** The key of a candidate list: its digest (every path and content hash in order) under this format's version. */
function keyOf(files: readonly CandidateFile[]): string {
  return `import-graph@${IMPORT_GRAPH_VERSION}:${fileListDigest(files)}`;
}

function isStored(value: Partial<Stored> | undefined): value is Stored {
  const watches = value?.watches;
  return (
    value !== undefined &&
    typeof value.key === 'string' &&
    Buffer.isBuffer(value.paths) &&
    Buffer.isBuffer(value.hashes) &&
    value.edges instanceof Uint32Array &&
    Array.isArray(value.fileWarnings) &&
    Array.isArray(value.configs) &&
    Array.isArray(value.warnings) &&
    watches !== undefined &&
    Array.isArray(watches.keys) &&
    watches.ends instanceof Uint32Array &&
    watches.files instanceof Uint32Array &&
    watches.ends.length === watches.keys.length
  );
}

/** What is kept of a graph; undefined for a graph without its basis or watches, or whose edges leave the candidates. */
function storedGraph(files: readonly CandidateFile[], graph: ImportGraph, reads: ReadonlyMap<string, KeptRead> | undefined, paths = pathsBuffer(files)): Stored | undefined {
  if (graph.basis?.watches === undefined) return undefined;
  const position = new Map(files.map((file, i) => [file.path, i]));
  const edges: number[] = [];
  for (const [path, targets] of graph.imports) {
    const from = position.get(path);
    if (from === undefined) return undefined;
    edges.push(from, targets.length);
    for (const target of targets) {
      const to = position.get(target);
      if (to === undefined) return undefined;
      edges.push(to);
    }
  }
  const fileWarnings: Stored['fileWarnings'] = [];
  for (const [path, warnings] of graph.basis.fileWarnings) {
    const at = position.get(path);
    if (at === undefined) return undefined;
    fileWarnings.push([at, warnings]);
  }
  // watches of files that are gone are dropped (they only ever make more files resolve again)
  const watchKeys: string[] = [];
  const ends: number[] = [];
  const watchFiles: number[] = [];
  for (const [key, paths] of graph.basis.watches) {
    for (const p of paths) {
      const at = position.get(p);
      if (at !== undefined) watchFiles.push(at);
    }
    if (watchFiles.length === (ends.at(-1) ?? 0)) continue;
    watchKeys.push(key);
    ends.push(watchFiles.length);
  }
  return {
    key: keyOf(files),
    paths,
    hashes: Buffer.from(files.map((file) => `${file.hash}\0`).join(''), 'latin1'),
    edges: Uint32Array.from(edges),
    fileWarnings,
    configs: [...(reads ?? graph.basis.project.configs)].map(([key, read]) => [key, { lookups: read.lookups }]),
    warnings: graph.warnings,
    watches: { keys: watchKeys, ends: Uint32Array.from(ends), files: Uint32Array.from(watchFiles) },
  };
}

/** Each kept file's targets, by path, from the stored positions; undefined when one is out of range. */
function keptEdges(paths: readonly string[], edges: Uint32Array): Map<string, string[]> | undefined {
  const targetsByPath = new Map<string, string[]>();
  for (let at = 0; at < edges.length; ) {
    const from = paths[edges[at]!];
    const count = edges[at + 1];
    if (from === undefined || count === undefined || at + 2 + count > edges.length) return undefined;
    const targets: string[] = [];
    for (let k = 0; k < count; k++) {
      const target = paths[edges[at + 2 + k]!];
      if (target === undefined) return undefined;
      targets.push(target);
    }
    targetsByPath.set(from, targets);
    at += 2 + count;
  }
  return targetsByPath;
}

/** The stored watches by key, with paths for positions; undefined when one is out of range. */
function keptWatches(paths: readonly string[], stored: Stored['watches']): Watches | undefined {
  const watches: Watches = new Map();
  let start = 0;
  for (let i = 0; i < stored.keys.length; i++) {
    const end = stored.ends[i]!;
    if (end < start || end > stored.files.length) return undefined;
    const set = new Set<string>();
    for (let k = start; k < end; k++) {
      const p = paths[stored.files[k]!];
      if (p === undefined) return undefined;
      set.add(p);
    }
    watches.set(stored.keys[i]!, set);
    start = end;
  }
  return watches;
}
