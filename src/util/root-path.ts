import { sep } from 'node:path';

/**
 * The absolute path of a root-relative, `/`-separated path under a root (a real path, native
 * separators); '' is the root itself. The one place a relative path becomes one the file system
 * takes (collect, the tree walk, the warm index's snapshot).
 */
export function underRoot(rootReal: string, path: string): string {
  if (path === '') return rootReal;
  return sep === '/' ? `${rootReal}/${path}` : `${rootReal}${sep}${path.split('/').join(sep)}`;
}
