import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { CandidateFile } from '../../types.js';
import { indexDirOf } from '../../cache/cache-dir.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { encodeFramed, readFramedSync } from '../../util/framed-file.js';
import { edgeMaps, resolveChangedFiles, type ImportGraph } from './index.js';
import { projectIndexIfReadsHold, type ConfigRead } from './project.js';

/**
 * The import graph of the last one-shot run, kept in `<cache dir>/index/import-graph.bin`, so a
 * warm run over the same files takes it instead of resolving every file's imports again (babel's
 * 27k files: ~200 ms). A graph is a function of the candidate files alone (the resolvers see only
 * their paths and, through the project index, their contents: config files are candidates too)
 * and of the resolvers' code, so it is keyed by every candidate's path and content hash and by
 * IMPORT_GRAPH_VERSION, which goes up with any change to a resolver. Over the same paths with some
 * contents changed (a checkout, an edit), the kept graph still serves when every config read it
 * made still holds: only the changed files are resolved again (resolveChangedFiles). Another
 * version or a damaged file is a miss, never an error. Edges are stored as positions in the
 * candidate list. A long-lived process keeps its graph in memory and updates it (derived.ts): it
 * never reads this.
 */
export const IMPORT_GRAPH_VERSION = 1;
const MAGIC = Buffer.from('AIWGIMP1', 'latin1');
const FILE_NAME = 'import-graph.bin';
/** Above this share of changed files the kept graph is not updated: a full build is no slower. */
const MAX_CHANGED_SHARE = 0.25;

type KeptGraph = Pick<ImportGraph, 'imports' | 'importers' | 'warnings'>;

export interface ImportGraphCache {
  /** The graph of exactly these files (in this order), from the kept one, or undefined: build it. */
  load(files: readonly CandidateFile[]): KeptGraph | undefined;
  /** Keep `graph` as the graph of `files` (written in the background; a failure only costs the next run a build). */
  save(files: readonly CandidateFile[], graph: ImportGraph): void;
}

interface Stored {
  key: string;
  /** The candidate paths alone, in order. */
  pathsKey: string;
  /** Each candidate's content hash, in order. */
  hashes: string[];
  /** Per file with edges: its position, its edge count, then its targets' positions. */
  edges: Uint32Array;
  /** The warnings resolving each file raised, by position. */
  fileWarnings: Array<[position: number, warnings: string[]]>;
  /** The lookups of every config read (their values are functions: read again on use), by key. */
  configs: Array<[key: string, read: KeptRead]>;
  warnings: string[];
}

type KeptRead = Pick<ConfigRead, 'lookups'>;

export function importGraphCache(cacheDir: string): ImportGraphCache {
  const path = join(indexDirOf(cacheDir), FILE_NAME);
  const keep = (files: readonly CandidateFile[], graph: ImportGraph, reads?: ReadonlyMap<string, KeptRead>): void => {
    const stored = storedGraph(files, graph, reads);
    if (stored === undefined) return;
    let data: Buffer;
    try {
      data = encodeFramed(MAGIC, IMPORT_GRAPH_VERSION, stored);
    } catch {
      return;
    }
    writeFileAtomic(path, data).catch(() => undefined);
  };
  return {
    load(files) {
      const stored = readFramedSync(path, MAGIC, IMPORT_GRAPH_VERSION, 'aiwg import graph') as Partial<Stored> | undefined;
      if (!isStored(stored)) return undefined;
      if (stored.key === keys(files).key) return decodeEdges(files, stored.edges, stored.warnings);
      // the same paths with some contents changed: resolve those again, if the config reads hold
      if (stored.pathsKey !== keys(files).paths || stored.hashes.length !== files.length) return undefined;
      const changed = files.filter((file, i) => file.hash !== stored.hashes[i]);
      if (changed.length > MAX_CHANGED_SHARE * files.length) return undefined;
      const reads = new Map(stored.configs);
      const project = projectIndexIfReadsHold(files, reads.values());
      const kept = project && decodeEdges(files, stored.edges, []);
      if (!project || !kept) return undefined;
      const fileWarnings = new Map(stored.fileWarnings.map(([position, warnings]) => [files[position]?.path ?? '', warnings]));
      const graph = resolveChangedFiles(files, project, { imports: kept.imports, fileWarnings }, changed);
      // the reads the unchanged files were resolved through hold still, and are kept with the new ones
      keep(files, graph, new Map([...reads, ...graph.basis!.project.configs]));
      return graph;
    },
    save: (files, graph) => keep(files, graph),
  };
}

/**
 * The two keys of a candidate list: every path and content hash in order (`key`), and the paths
 * alone (`paths`). Worked out once per list: a run that misses builds and saves with the same list.
 */
const keysOf = new WeakMap<readonly CandidateFile[], { key: string; paths: string }>();
function keys(files: readonly CandidateFile[]): { key: string; paths: string } {
  let found = keysOf.get(files);
  if (found === undefined) {
    const key = createHash('sha256').update(`import-graph@${IMPORT_GRAPH_VERSION}\n`);
    const paths = createHash('sha256').update(`import-graph paths@${IMPORT_GRAPH_VERSION}\n`);
    for (const file of files) {
      key.update(`${file.path}\0${file.hash}\n`);
      paths.update(`${file.path}\n`);
    }
    found = { key: key.digest('hex'), paths: paths.digest('hex') };
    keysOf.set(files, found);
  }
  return found;
}

function isStored(value: Partial<Stored> | undefined): value is Stored {
  return (
    value !== undefined &&
    typeof value.key === 'string' &&
    typeof value.pathsKey === 'string' &&
    Array.isArray(value.hashes) &&
    value.edges instanceof Uint32Array &&
    Array.isArray(value.fileWarnings) &&
    Array.isArray(value.configs) &&
    Array.isArray(value.warnings)
  );
}

/** What is kept of a graph; undefined for a graph without its basis, or whose edges leave the candidates. */
function storedGraph(files: readonly CandidateFile[], graph: ImportGraph, reads: ReadonlyMap<string, KeptRead> | undefined): Stored | undefined {
  if (graph.basis === undefined) return undefined;
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
  return {
    key: keys(files).key,
    pathsKey: keys(files).paths,
    hashes: files.map((file) => file.hash),
    edges: Uint32Array.from(edges),
    fileWarnings,
    configs: [...(reads ?? graph.basis.project.configs)].map(([key, read]) => [key, { lookups: read.lookups }]),
    warnings: graph.warnings,
  };
}

/** The graph buildImportGraph gives, from the stored positions; undefined when one is out of range. */
function decodeEdges(files: readonly CandidateFile[], edges: Uint32Array, warnings: string[]): KeptGraph | undefined {
  const targetsByPath = new Map<string, string[]>();
  for (let at = 0; at < edges.length; ) {
    const from = files[edges[at]!];
    const count = edges[at + 1];
    if (from === undefined || count === undefined || at + 2 + count > edges.length) return undefined;
    const targets: string[] = [];
    for (let k = 0; k < count; k++) {
      const target = files[edges[at + 2 + k]!];
      if (target === undefined) return undefined;
      targets.push(target.path);
    }
    targetsByPath.set(from.path, targets);
    at += 2 + count;
  }
  return { ...edgeMaps(files, targetsByPath), warnings };
}
