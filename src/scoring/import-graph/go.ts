import type { LanguageSupport } from './language.js';
import { scannedText, stripCStyleComments } from './language.js';
import { dirOf, type ProjectIndex } from './project.js';

/**
 * Go: single and grouped `import` declarations. An import path under the module path of the
 * nearest go.mod names a package directory; the edge goes to every non-test .go file in it.
 */
export const goSupport: LanguageSupport = {
  name: 'go',
  files: /\.go$/,
  extract: (content) => extractGoImports(content),
  prepare(project) {
    return (path, specifiers) => {
      const mod = moduleFor(dirOf(path), project);
      if (mod === null) return [];
      const out = new Set<string>();
      for (const spec of specifiers) {
        if (spec !== mod.module && !spec.startsWith(`${mod.module}/`)) continue;
        const rel = spec.slice(mod.module.length).replace(/^\//, '');
        const dir = mod.dir === '' ? rel : rel === '' ? mod.dir : `${mod.dir}/${rel}`;
        for (const p of project.filesIn(dir)) if (p.endsWith('.go') && !p.endsWith('_test.go') && p !== path) out.add(p);
      }
      return [...out];
    };
  },
};

export function extractGoImports(content: string): string[] {
  const text = stripCStyleComments(scannedText(content));
  const out: string[] = [];
  const block = /\bimport\s*\(([^)]*)\)/g;
  for (let m = block.exec(text); m !== null; m = block.exec(text)) {
    for (const s of (m[1] as string).matchAll(/"([^"\n]+)"/g)) out.push(s[1] as string);
  }
  const single = /\bimport\s+(?:[A-Za-z_.]\w*\s+)?"([^"\n]+)"/g;
  for (let m = single.exec(text); m !== null; m = single.exec(text)) out.push(m[1] as string);
  return out;
}

function moduleFor(dir: string, project: ProjectIndex): { dir: string; module: string } | null {
  const goMod = project.nearest(dir, 'go.mod');
  if (goMod === undefined) return null;
  return project.readConfig(`go.mod ${goMod}`, (view) => {
    const m = /^\s*module\s+(\S+)/m.exec(view.content(goMod) ?? '');
    if (!m) view.warnings.push(`dependency_depth: ${goMod} has no module line; Go imports in it are not resolved`);
    return m ? { dir: dirOf(goMod), module: (m[1] as string).replace(/^"|"$/g, '') } : null;
  });
}
