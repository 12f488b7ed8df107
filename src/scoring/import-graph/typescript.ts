import { isInComment, scannedText, type LanguageSupport } from './language.js';
import { dirOf, joinInside, type ProjectIndex } from './project.js';
import { readTsconfigAliases, type AliasResolver } from './tsconfig.js';

/**
 * TypeScript and JavaScript: `import ... from`, side-effect `import 'x'`, `export ... from`,
 * `require()`, dynamic `import()`; relative specifiers with extension probing, index files and
 * the NodeNext `.js` -> `.ts` mapping; bare specifiers through the nearest tsconfig/jsconfig
 * `compilerOptions.paths` and `baseUrl`, `extends` followed (read by get-tsconfig, tsconfig.ts). Package imports (node_modules) are not candidates.
 */
export const typescriptSupport: LanguageSupport = {
  name: 'typescript',
  files: /\.(?:[cm]?[jt]sx?|vue|svelte|astro)$/,
  extract: (content) => extractSpecifiers(content),
  prepare(project) {
    return (path, specifiers) => {
      const out = new Set<string>();
      for (const spec of specifiers) {
        const target = resolveSpecifier(spec, path, project);
        if (target !== null && target !== path) out.add(target);
      }
      return [...out];
    };
  },
};

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bexport\s*\*\s*from\s*)(['"`])([^'"`\n]{1,300})\1/g;

export function extractSpecifiers(content: string): string[] {
  const text = scannedText(content);
  const out: string[] = [];
  SPECIFIER.lastIndex = 0;
  for (let m = SPECIFIER.exec(text); m !== null; m = SPECIFIER.exec(text)) if (!isInComment(text, m.index)) out.push(m[2] as string);
  return out;
}

const EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.vue', '.svelte'];
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx', '.d.ts'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts', '.d.mts'],
  '.cjs': ['.cts', '.d.cts'],
};

function resolveSpecifier(spec: string, path: string, project: ProjectIndex): string | null {
  const clean = spec.replace(/[?#].*$/, '');
  if (clean.startsWith('.')) {
    const base = joinInside(dirOf(path), clean);
    return base === null ? null : probe(base, project);
  }
  const aliases = aliasesFor(dirOf(path), project);
  if (aliases === null) return null;
  for (const base of aliases(clean)) {
    const hit = probe(base, project);
    if (hit !== null) return hit;
  }
  return null;
}

/** Probe a specifier base: as is, NodeNext .js -> .ts, with extensions, as a directory index. */
function probe(base: string, project: ProjectIndex): string | null {
  if (project.has(base)) return base;
  const ext = /\.[cm]?jsx?$/.exec(base)?.[0];
  if (ext !== undefined) {
    const stem = base.slice(0, -ext.length);
    for (const alt of JS_TO_TS[ext] ?? []) if (project.has(stem + alt)) return stem + alt;
  }
  for (const e of EXTENSIONS) if (project.has(base + e)) return base + e;
  for (const e of EXTENSIONS) if (project.has(`${base}/index${e}`)) return `${base}/index${e}`;
  return null;
}

function aliasesFor(dir: string, project: ProjectIndex): AliasResolver | null {
  const configPath = project.nearest(dir, 'tsconfig.json') ?? project.nearest(dir, 'jsconfig.json');
  if (configPath === undefined) return null;
  return project.readConfig(`tsconfig ${configPath}`, (view) => readTsconfigAliases(configPath, view));
}
