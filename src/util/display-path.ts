import { isAbsolute, relative, sep } from 'node:path';

/** How a path is named in headers, events and reports: root-relative (POSIX) when inside the root, else as given. */
export function displayPath(root: string, file: string): string {
  const rel = relative(root, file);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel.split(sep).join('/') : file;
}
