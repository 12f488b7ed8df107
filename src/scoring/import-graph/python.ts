import type { LanguageSupport } from './language.js';
import { scannedText } from './language.js';
import { dirOf, joinInside, type ProjectIndex } from './project.js';

/**
 * Python: `import a.b`, `import a.b as c, d`, `from a.b import c`, `from . import x`,
 * `from ..pkg.mod import y`. Relative imports resolve from the file's package; absolute ones
 * against every directory that holds the top-level package (the root, src/, ...), found by
 * path suffix. `from a import b` may name module a/b.py or a name inside a/__init__.py.
 */
export const pythonSupport: LanguageSupport = {
  name: 'python',
  files: /\.pyi?$/,
  // a specifier is `level|module|name,name` (PythonImport flattened for the fact store)
  extract: (content) => extractPythonImports(scannedText(content)).map((i) => `${i.level}|${i.module}|${i.names.join(',')}`),
  prepare(project) {
    return (path, specifiers) => {
      const out = new Set<string>();
      for (const spec of specifiers) {
        const [level = '0', module = '', names = ''] = spec.split('|');
        const imp: PythonImport = { level: Number(level), module, names: names === '' ? [] : names.split(',') };
        for (const target of resolvePython(imp, dirOf(path), project)) if (target !== path) out.add(target);
      }
      return [...out];
    };
  },
};

export interface PythonImport {
  /** Leading dots of a relative import (0 = absolute). */
  level: number;
  /** Dotted module, possibly empty for `from . import x`. */
  module: string;
  /** Names after `from ... import`. */
  names: string[];
}

export function extractPythonImports(text: string): PythonImport[] {
  const out: PythonImport[] = [];
  const joined = text.replace(/\\\r?\n/g, ' ').replace(/\(([^)]*)\)/g, (m: string, inner: string) => (m.includes('\n') ? inner.replace(/\s+/g, ' ') : m));
  for (const line of joined.split('\n')) {
    const from = /^\s*from\s+(\.*)([A-Za-z0-9_.]*)\s+import\s+(.+)$/.exec(line);
    if (from) {
      const names = (from[3] as string).replace(/[()]/g, '').split(',').map((n) => n.trim().split(/\s+/)[0] as string).filter((n) => /^[A-Za-z_]\w*$/.test(n));
      out.push({ level: (from[1] as string).length, module: from[2] as string, names });
      continue;
    }
    const imp = /^\s*import\s+([A-Za-z0-9_., ]+?)\s*(?:#.*)?$/.exec(line);
    if (imp) for (const part of (imp[1] as string).split(',')) {
      const module = part.trim().split(/\s+/)[0] ?? '';
      if (module !== '') out.push({ level: 0, module, names: [] });
    }
  }
  return out;
}

function resolvePython(imp: PythonImport, fileDir: string, project: ProjectIndex): string[] {
  const modulePath = imp.module.replace(/\./g, '/');
  const found: string[] = [];
  if (imp.level > 0) {
    const up = '../'.repeat(imp.level - 1);
    const base = joinInside(fileDir, `${up}${modulePath}` || '.');
    if (base === null) return found;
    const hit = moduleAt(base, project);
    for (const name of imp.names) {
      const sub = moduleAt(base === '' ? name : `${base}/${name}`, project);
      if (sub) found.push(sub);
    }
    if (hit && (found.length === 0 || modulePath !== '')) found.push(hit);
    return found;
  }
  for (const name of imp.names) {
    const sub = bySuffix(`${modulePath}/${name}`, project);
    if (sub) found.push(sub);
  }
  const hit = bySuffix(modulePath, project);
  if (hit) found.push(hit);
  return found;
}

function moduleAt(base: string, project: ProjectIndex): string | undefined {
  for (const candidate of [`${base}.py`, `${base}.pyi`, `${base}/__init__.py`]) if (project.has(candidate.replace(/^\//, ''))) return candidate.replace(/^\//, '');
  return undefined;
}

/** Absolute module: the shortest matching path wins (closest to a source root), ties by path. */
function bySuffix(modulePath: string, project: ProjectIndex): string | undefined {
  const hits = [...project.withSuffix(`${modulePath}.py`), ...project.withSuffix(`${modulePath}/__init__.py`), ...project.withSuffix(`${modulePath}.pyi`)];
  hits.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  return hits[0];
}
