import type { LanguageSupport } from './language.js';
import { scannedText, stripCStyleComments } from './language.js';
import { dirOf, joinInside, type ProjectIndex } from './project.js';

/**
 * Rust: `mod name;` declarations (name.rs or name/mod.rs beside the declaring module) and
 * `use crate::a::b`, `use super::x`, `use self::y` paths (longest prefix that is a module
 * file wins). The crate root is src/ of the nearest Cargo.toml, or the directory of lib.rs/main.rs.
 */
export const rustSupport: LanguageSupport = {
  name: 'rust',
  files: /\.rs$/,
  // specifiers: `mod name` for module declarations, `use crate::a::b` for use paths
  extract(content) {
    const text = stripCStyleComments(scannedText(content));
    const mods = [...text.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*;/gm)].map((m) => `mod ${m[1] as string}`);
    const uses = [...text.matchAll(/\buse\s+((?:crate|super|self)(?:::[A-Za-z_]\w*)+)/g)].map((m) => `use ${m[1] as string}`);
    return [...mods, ...uses];
  },
  prepare(project) {
    return (path, specifiers) => {
      const moduleDir = moduleDirOf(path);
      const out = new Set<string>();
      for (const spec of specifiers) {
        if (!spec.startsWith('mod ')) continue;
        const hit = moduleFile(joinInside(moduleDir, spec.slice(4)), project);
        if (hit) out.add(hit);
      }
      const crateDir = crateRoot(path, project);
      for (const spec of specifiers) {
        if (!spec.startsWith('use ')) continue;
        const segments = spec.slice(4).split('::');
        const head = segments.shift();
        let base: string | null;
        if (head === 'crate') base = crateDir;
        else if (head === 'super') base = joinInside(moduleDir, '..');
        else base = moduleDir;
        while (segments[0] === 'super' && base !== null) {
          segments.shift();
          base = joinInside(base, '..');
        }
        if (base === null) continue;
        for (let n = segments.length; n > 0; n--) {
          const hit = moduleFile(joinInside(base, segments.slice(0, n).join('/')), project);
          if (hit) {
            out.add(hit);
            break;
          }
        }
      }
      out.delete(path);
      return [...out];
    };
  },
};

/** Directory where a file's child modules live: beside lib.rs/main.rs/mod.rs, else in a folder named after the file. */
function moduleDirOf(path: string): string {
  const dir = dirOf(path);
  const base = path.slice(dir === '' ? 0 : dir.length + 1);
  if (base === 'lib.rs' || base === 'main.rs' || base === 'mod.rs') return dir;
  const stem = base.replace(/\.rs$/, '');
  return dir === '' ? stem : `${dir}/${stem}`;
}

function moduleFile(base: string | null, project: ProjectIndex): string | undefined {
  if (base === null) return undefined;
  for (const candidate of [`${base}.rs`, `${base}/mod.rs`]) if (project.has(candidate)) return candidate;
  return undefined;
}

function crateRoot(path: string, project: ProjectIndex): string {
  const cargo = project.nearest(dirOf(path), 'Cargo.toml');
  if (cargo !== undefined) return dirOf(cargo) === '' ? 'src' : `${dirOf(cargo)}/src`;
  return dirOf(path);
}
