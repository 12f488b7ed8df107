import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CandidateFile } from '../../types.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { decodeFramed, encodeFramed } from '../../util/framed-file.js';
import { fileListDigest, sha256Hex } from '../../util/hash.js';
import { modelSlug } from './embedding-store.js';

/**
 * The chunk labels of a file set, for a one-shot run over files it has seen before. Semantic
 * alignment of a warm run rebuilt the same things from the vector pack every time: each file's
 * chunk list, every chunk's vector, the set of distinct chunks and its diff against the ANN
 * index's labels (babel: 27k files, 42k chunks, ~250 ms of the main thread and a 21 MB pack
 * scanned). To score it needs only each file's chunks as labels: of the ANN index, or below
 * ann_min_chunks (exact search) rows of the distinct chunks' vectors, kept here too. Every full
 * one-shot alignment writes them (after a changed ANN index is saved, whose new name they hold);
 * the next run over the same files (paths and blobs), model, chunk settings and index file scores
 * from them: the task's vector (embedded and appended to the pack when new), one search, and each
 * file from its labels, with the scores of the full path to the last bit.
 *
 * The file also lists its files (path and blob), so a run over a file set that differs a little
 * (an edit, a checkout a few commits away) takes the labels of the files that did not change and
 * looks up only the others (semantic-alignment.ts: alignFromChangedLabels).
 *
 * File: `<index dir>/<model slug>.labels`, a framed file (util/framed-file.ts) written whole
 * (temp file and rename). Anything that does not match, or a damaged file, is a miss: the run
 * takes the full path, which writes the file again.
 */
export const FILE_LABELS_MAGIC = Buffer.from('AIWGLBL1', 'latin1');
/** 2: the files are listed (`files`). */
const FILE_LABELS_VERSION = 2;

export interface FileLabels {
  /** fileSetDigest of the files, settings and model the labels were written for. */
  digest: string;
  /** The ANN index file (meta.indexFile) whose labels these are. */
  indexFile: string;
  /** Distinct chunks of the file set (what the search's k is taken from). */
  unique: number;
  /** Files in path order: file i's chunk labels are labels[starts[i], starts[i + 1]). */
  starts: Uint32Array;
  labels: Int32Array;
  /** Below ann_min_chunks (exact search, `indexFile` ''): the distinct chunks' vectors, label i at row i. */
  vectors?: Float32Array;
  /** The files in path order, each as `path NUL blob NUL` (listedFiles): one buffer, split only when the file set changed. */
  files: Buffer;
}

export function fileLabelsPath(indexDir: string, modelId: string): string {
  return join(indexDir, `${modelSlug(modelId)}.labels`);
}

/** The files in path order, as a full alignment visits them: the list itself when it is in that order already (collect's is). */
export function byPath(files: readonly CandidateFile[]): readonly CandidateFile[] {
  for (let i = 1; i < files.length; i++) if (files[i - 1]!.path >= files[i]!.path) return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

/** The `files` of a labels file: each file's path and blob, in the order given (path order). */
export function listFiles(sorted: readonly Pick<CandidateFile, 'path' | 'hash'>[]): Buffer {
  return Buffer.from(sorted.map((file) => `${file.path}\0${file.hash}\0`).join(''), 'utf8');
}

/** The files a labels file lists, as listFiles wrote them; null when the list does not fit its labels. */
export function listedFiles(labels: FileLabels): { paths: string[]; hashes: string[] } | null {
  const parts = labels.files.toString('utf8').split('\0');
  // n files give 2n parts and the empty one after the last NUL
  if (parts.length !== 2 * (labels.starts.length - 1) + 1 || parts[parts.length - 1] !== '') return null;
  const paths: string[] = [];
  const hashes: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    paths.push(parts[i]!);
    hashes.push(parts[i + 1]!);
  }
  return { paths, hashes };
}

/** What the labels depend on: every file's path and blob (in path order), the chunk settings and the model. */
export function fileSetDigest(sorted: readonly Pick<CandidateFile, 'path' | 'hash'>[], settings: string, modelId: string): string {
  return sha256Hex(`${modelId}\0${settings}\0${fileListDigest(sorted)}`);
}

export async function readFileLabels(path: string): Promise<FileLabels | null> {
  const data = await readFile(path).catch(() => undefined);
  if (data === undefined) return null;
  const framed = decodeFramed(data, FILE_LABELS_MAGIC, FILE_LABELS_VERSION, 'chunk labels file');
  if ('problem' in framed) return null;
  const v = framed.value as Partial<FileLabels> | null;
  const valid =
    v !== null &&
    typeof v === 'object' &&
    typeof v.digest === 'string' &&
    typeof v.indexFile === 'string' &&
    typeof v.unique === 'number' &&
    v.starts instanceof Uint32Array &&
    v.labels instanceof Int32Array &&
    v.starts.length > 0 &&
    v.starts[0] === 0 &&
    v.starts[v.starts.length - 1] === v.labels.length &&
    v.starts.every((start, i) => i === 0 || start >= v.starts![i - 1]!) &&
    Buffer.isBuffer(v.files) &&
    (v.vectors === undefined || (v.vectors instanceof Float32Array && v.unique > 0 && v.vectors.length % v.unique === 0));
  return valid ? (v as FileLabels) : null;
}

export async function writeFileLabels(path: string, labels: FileLabels): Promise<void> {
  await writeFileAtomic(path, encodeFramed(FILE_LABELS_MAGIC, FILE_LABELS_VERSION, labels));
}

/**
 * The labels of each file's chunks, in path order, from their chunk keys and the ANN index's
 * key -> label map; null when a chunk has no live label.
 */
export function labelsOf(fileChunks: ReadonlyMap<string, readonly string[]>, labelOf: ReadonlyMap<string, number>): { starts: Uint32Array; labels: Int32Array } | null {
  const starts = new Uint32Array(fileChunks.size + 1);
  let total = 0;
  let i = 0;
  for (const hashes of fileChunks.values()) {
    starts[i++] = total;
    total += hashes.length;
  }
  starts[i] = total;
  const labels = new Int32Array(total);
  let at = 0;
  for (const hashes of fileChunks.values()) {
    for (const hash of hashes) {
      const label = labelOf.get(hash);
      if (label === undefined) return null;
      labels[at++] = label;
    }
  }
  return { starts, labels };
}
