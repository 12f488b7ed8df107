import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoChangeTable } from '../types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { GitPort } from './git-port.js';

/**
 * Co-change history: which files changed in the same commits of the repository's recent history
 * (read at collect time, used by task alignment: src/scoring/co-change.ts). Huge commits (mass
 * renames, reformatting) are skipped; the table of a HEAD is cached under the cache directory.
 */

export interface CoChangeOptions {
  /** The root's path relative to the repository top ('' or `dir/`). */
  prefix: string;
  head: string;
  /** Most recent commits walked. */
  commits: number;
  /** A commit touching more files than this (mass rename, formatting) is skipped. */
  maxFiles: number;
  /** Where the table of this HEAD is cached; undefined = not cached. */
  cacheDir?: string;
}

/** Build the table from commits' file lists (newest first), root-relative. Pure. */
export function buildCoChange(commitFiles: readonly (readonly string[])[], maxFiles: number): CoChangeTable {
  const touched = new Map<string, number>();
  const pairs = new Map<string, Map<string, number>>();
  let commits = 0;
  for (const files of commitFiles) {
    const unique = [...new Set(files)];
    if (unique.length === 0 || unique.length > maxFiles) continue;
    commits++;
    for (const a of unique) {
      touched.set(a, (touched.get(a) ?? 0) + 1);
      for (const b of unique) {
        if (a === b) continue;
        let row = pairs.get(a);
        if (!row) pairs.set(a, (row = new Map()));
        row.set(b, (row.get(b) ?? 0) + 1);
      }
    }
  }
  return { commits, touched, pairs };
}

/** `git log -z --name-only --format=%x00` output: commits separated by an empty field. */
export function parseNameLog(output: string, prefix: string): string[][] {
  const commits: string[][] = [];
  let current: string[] | null = null;
  for (const raw of output.split('\0')) {
    const field = raw.replace(/^\n+/, '');
    if (field === '') {
      if (current) commits.push(current);
      current = [];
      continue;
    }
    if (current && field.startsWith(prefix)) current.push(field.slice(prefix.length));
  }
  if (current) commits.push(current);
  return commits.filter((c) => c.length > 0);
}

function cachePath(cacheDir: string, options: CoChangeOptions): string {
  const key = createHash('sha256').update(`${options.head}\0${options.prefix}\0${options.commits}\0${options.maxFiles}`).digest('hex').slice(0, 32);
  return join(cacheDir, 'index', 'co-change', `${key}.json`);
}

/** The cached table, or undefined when absent or unreadable (a corrupt entry is a miss). */
export async function readCachedCoChange(path: string): Promise<CoChangeTable | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { commits?: unknown; files?: unknown };
    if (typeof parsed.commits !== 'number' || !Array.isArray(parsed.files)) return undefined;
    if (!parsed.files.every((c) => Array.isArray(c) && c.every((p) => typeof p === 'string'))) return undefined;
    return buildCoChange(parsed.files as string[][], Infinity);
  } catch {
    return undefined;
  }
}

/**
 * The co-change table of HEAD: one `git log` of the last `commits` commits, cached under the
 * cache directory keyed by HEAD (history is content-addressed), written atomically.
 */
export async function loadCoChange(git: GitPort, root: string, options: CoChangeOptions): Promise<CoChangeTable> {
  const path = options.cacheDir === undefined ? undefined : cachePath(options.cacheDir, options);
  if (path !== undefined) {
    const cached = await readCachedCoChange(path);
    if (cached) return cached;
  }
  const out = await git.run(['log', '-z', '--name-only', '--no-renames', '--format=%x00', `-n${options.commits}`, 'HEAD', '--', '.'], root);
  const files = parseNameLog(out.toString('utf8'), options.prefix).filter((c) => c.length <= options.maxFiles);
  const table = buildCoChange(files, options.maxFiles);
  if (path !== undefined) await writeFileAtomic(path, JSON.stringify({ commits: table.commits, files })).catch(() => undefined);
  return table;
}

