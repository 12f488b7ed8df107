import { writeFile } from 'node:fs/promises';
import { ensureDir } from '../util/atomic-write.js';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Config } from '../config/schema.js';
import { resolveCacheDir, resolveSummaryCacheDir } from './cache-dir.js';

/**
 * The tool's own directories ignore themselves: caches, records and logs never show in
 * `git status`, and other packers (repomix & co.) skip them too. Each holds a `.gitignore`
 * written once, never over one the user wrote.
 */

/** `.aiwg/rag/`, relative to the root: the tool's data beside the files a user writes there. */
export const RAG_DIR = join('.aiwg', 'rag');

/**
 * `.aiwg/rag/.gitignore`: everything the tool writes there is ignored; the files a user
 * authors there (config, phase manifests, handoffs) stay visible.
 */
export const RAG_GITIGNORE = [
  '# Written by aiwg-context: its caches, records and logs stay out of git.',
  '# Files you write here yourself stay visible; edit this file to change that.',
  '*',
  '!config.yaml',
  '!phase-manifests.yaml',
  '!handoffs/',
  '!handoffs/**',
  '',
].join('\n');

/** A cache directory elsewhere inside the root holds nothing but the tool's data. */
export const CACHE_GITIGNORE = '# Written by aiwg-context: a cache, never committed.\n*\n';

/**
 * Create the directories a run writes to, each with its `.gitignore`. Without a config that is
 * `.aiwg/rag/` (records and logs); with one, the cache directories it names: `.aiwg/rag/` when
 * they lie in it, the directory itself elsewhere inside the root, nothing for a shared cache
 * outside the root or in the repository's git directory.
 */
export async function ensureOwnDirs(root: string, config?: Config): Promise<void> {
  const rag = join(root, RAG_DIR);
  const dirs = config === undefined ? [rag] : [resolveCacheDir(root, config), resolveSummaryCacheDir(root, config)];
  // a cache in the repository's git directory (cache-dir.ts) needs no .gitignore
  const gitDir = join(root, '.git');
  for (const dir of new Set(dirs.filter((d) => isInside(root, d) && !isInside(gitDir, d)).map((d) => (isInside(rag, d) ? rag : d)))) {
    await ensureIgnoredDir(dir, dir === rag ? RAG_GITIGNORE : CACHE_GITIGNORE);
  }
}

/** Create `dir` with its `.gitignore`, never overwriting one that exists. */
export async function ensureIgnoredDir(dir: string, gitignore: string): Promise<void> {
  // One level at a time: Node's recursive mkdir loops forever under /proc.
  ensureDir(dir);
  try {
    // `wx`: never overwrite a .gitignore someone wrote; two runs racing both end with one file.
    await writeFile(join(dir, '.gitignore'), gitignore, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** `child` is `parent` or below it. */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
