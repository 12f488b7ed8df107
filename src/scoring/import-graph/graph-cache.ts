import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { CandidateFile } from '../../types.js';
import { indexDirOf } from '../../cache/cache-dir.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { encodeFramed, readFramedSync } from '../../util/framed-file.js';
import type { ImportGraph } from './index.js';

/**
 * The import graph of the last one-shot run, kept in `<cache dir>/index/import-graph.bin`, so a
 * warm run over the same files takes it instead of resolving every file's imports again (babel's
 * 27k files: ~200 ms). A graph is a function of the candidate files alone (the resolvers see only
 * their paths and, through the project index, their contents: config files are candidates too)
 * and of the resolvers' code, so it is keyed by every candidate's path and content hash and by
 * IMPORT_GRAPH_VERSION, which goes up with any change to a resolver. Another key, another version
 * or a damaged file is a miss, never an error. Edges are stored as positions in the candidate list.
 * A long-lived process keeps its graph in memory and updates it (derived.ts): it never reads this.
 */
export const IMPORT_GRAPH_VERSION = 1;
const MAGIC = Buffer.from('AIWGIMP1', 'latin1');
const FILE_NAME = 'import-graph.bin';

export interface ImportGraphCache {
  /** The graph kept for exactly these files (in this order), or undefined. */
  load(files: readonly CandidateFile[]): Pick<ImportGraph, 'imports' | 'importers' | 'warnings'> | undefined;
  /** Keep `graph` as the graph of `files` (written in the background; a failure only costs the next run a build). */
  save(files: readonly CandidateFile[], graph: ImportGraph): void;
}

interface Stored {
  key: string;
  /** Per file with edges: its position, its edge count, then its targets' positions. */
  edges: Uint32Array;
  warnings: string[];
}

export function importGraphCache(cacheDir: string): ImportGraphCache {
  const path = join(indexDirOf(cacheDir), FILE_NAME);
  return {
    load(files) {
      const stored = readFramedSync(path, MAGIC, IMPORT_GRAPH_VERSION, 'aiwg import graph') as Partial<Stored> | undefined;
      if (stored === undefined || stored.key !== graphKey(files) || !(stored.edges instanceof Uint32Array) || !Array.isArray(stored.warnings)) return undefined;
      return decodeEdges(files, stored.edges, stored.warnings);
    },
    save(files, graph) {
      const edges = encodeEdges(files, graph);
      if (edges === undefined) return;
      const stored: Stored = { key: graphKey(files), edges, warnings: graph.warnings };
      writeFileAtomic(path, encodeFramed(MAGIC, IMPORT_GRAPH_VERSION, stored)).catch(() => undefined);
    },
  };
}

/** The candidate files as the graph sees them: every path and content hash, in order. */
function graphKey(files: readonly CandidateFile[]): string {
  const hash = createHash('sha256').update(`import-graph@${IMPORT_GRAPH_VERSION}\n`);
  for (const file of files) hash.update(`${file.path}\0${file.hash}\n`);
  return hash.digest('hex');
}

/** The edges as positions; undefined when a target is not a candidate (then nothing is kept). */
function encodeEdges(files: readonly CandidateFile[], graph: ImportGraph): Uint32Array | undefined {
  const position = new Map(files.map((file, i) => [file.path, i]));
  const out: number[] = [];
  for (const [path, targets] of graph.imports) {
    const from = position.get(path);
    if (from === undefined) return undefined;
    out.push(from, targets.length);
    for (const target of targets) {
      const to = position.get(target);
      if (to === undefined) return undefined;
      out.push(to);
    }
  }
  return Uint32Array.from(out);
}

/** The graph buildImportGraph gives: imports in the stored order, importers sorted. */
function decodeEdges(files: readonly CandidateFile[], edges: Uint32Array, warnings: string[]): Pick<ImportGraph, 'imports' | 'importers' | 'warnings'> | undefined {
  const imports = new Map<string, string[]>();
  const importers = new Map<string, string[]>();
  for (let at = 0; at < edges.length; ) {
    const from = files[edges[at]!];
    const count = edges[at + 1];
    if (from === undefined || count === undefined || at + 2 + count > edges.length) return undefined;
    const targets: string[] = [];
    for (let k = 0; k < count; k++) {
      const target = files[edges[at + 2 + k]!];
      if (target === undefined) return undefined;
      targets.push(target.path);
      const list = importers.get(target.path);
      if (list) list.push(from.path);
      else importers.set(target.path, [from.path]);
    }
    imports.set(from.path, targets);
    at += 2 + count;
  }
  for (const list of importers.values()) list.sort();
  return { imports, importers, warnings };
}
