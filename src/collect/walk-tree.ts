import { sep } from 'node:path';
import type { ExcludedFile } from '../types.js';
import { InputError } from '../errors.js';
import type { CollectFs } from './collect-ports.js';
import { IgnoreMatcher, parseIgnoreFile } from './ignore-rules.js';
import type { PathFilter } from './path-filter.js';
import { underRoot } from '../util/root-path.js';

/**
 * List the files under a root that is not a git repository: every directory is read, the
 * .gitignore files found on the way apply to their subtrees (see ignore-rules.ts for the
 * supported syntax), `.git` is skipped, and excluded directories (node_modules, vendor, ...)
 * are recorded once and not entered. Symlinks are listed, never followed here.
 */
export async function walkTree(
  fs: CollectFs,
  rootReal: string,
  filter: PathFilter,
): Promise<{ paths: string[]; excluded: ExcludedFile[]; warnings: string[] }> {
  const gitignore = new IgnoreMatcher();
  const paths: string[] = [];
  const excluded: ExcludedFile[] = [];
  const warnings: string[] = [];

  const visit = async (dir: string): Promise<void> => {
    const abs = underRoot(rootReal, dir);
    let entries;
    try {
      entries = await fs.readdir(abs);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (dir === '') throw new InputError(`root ${rootReal}: cannot list the directory (${code}); check its permissions`, { cause: error });
      excluded.push({ path: `${dir}/`, reason: `unreadable directory (${code})` });
      return;
    }
    if (entries.some((e) => e.name === '.gitignore' && e.kind === 'file')) {
      try {
        const text = (await fs.readFile(`${abs}${sep}.gitignore`)).toString('utf8');
        gitignore.add(parseIgnoreFile(text, dir));
      } catch (error) {
        warnings.push(`${dir === '' ? '' : `${dir}/`}.gitignore unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'}): its rules are not applied`);
      }
    }
    const subdirs: string[] = [];
    for (const entry of entries) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.kind === 'dir') {
        if (entry.name === '.git' || gitignore.ignoredBy(path, true)) continue;
        const reason = filter.dirReason(path);
        if (reason !== undefined) excluded.push({ path: `${path}/`, reason: `${reason} (not walked)` });
        else subdirs.push(path);
      } else if (!gitignore.ignoredBy(path, false)) paths.push(path);
    }
    await Promise.all(subdirs.map(visit));
  };

  await visit('');
  return { paths, excluded, warnings };
}
