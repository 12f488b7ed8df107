import type { CandidateFile } from '../../types.js';
import { isInComment, scannedText, stripCStyleComments, type LanguageSupport } from './language.js';
import { dirOf, joinInside, type ProjectIndex } from './project.js';

/**
 * TypeScript and JavaScript: `import ... from`, side-effect `import 'x'`, `export ... from`,
 * `require()`, dynamic `import()`; relative specifiers with extension probing, index files and
 * the NodeNext `.js` -> `.ts` mapping; bare specifiers through the nearest tsconfig/jsconfig
 * `compilerOptions.paths` and `baseUrl`. Package imports (node_modules) are not candidates.
 */
export const typescriptSupport: LanguageSupport = {
  name: 'typescript',
  files: /\.(?:[cm]?[jt]sx?|vue|svelte|astro)$/,
  prepare(project) {
    const configs = new Map<string, TsPaths | null>();
    return (file) => {
      const out = new Set<string>();
      for (const spec of extractSpecifiers(file.content)) {
        const target = resolveSpecifier(spec, file, project, configs);
        if (target !== null && target !== file.path) out.add(target);
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

interface TsPaths {
  dir: string;
  baseUrl: string | null;
  paths: Array<{ prefix: string; suffix: string; wildcard: boolean; targets: string[] }>;
}

function resolveSpecifier(spec: string, file: CandidateFile, project: ProjectIndex, configs: Map<string, TsPaths | null>): string | null {
  const clean = spec.replace(/[?#].*$/, '');
  if (clean.startsWith('.')) {
    const base = joinInside(dirOf(file.path), clean);
    return base === null ? null : probe(base, project);
  }
  const config = tsPathsFor(dirOf(file.path), project, configs);
  if (config === null) return null;
  for (const entry of config.paths) {
    let star: string | null = null;
    if (entry.wildcard && clean.startsWith(entry.prefix) && clean.endsWith(entry.suffix) && clean.length >= entry.prefix.length + entry.suffix.length) {
      star = clean.slice(entry.prefix.length, clean.length - entry.suffix.length);
    } else if (!entry.wildcard && clean === entry.prefix) star = '';
    if (star === null) continue;
    for (const target of entry.targets) {
      const base = joinInside(config.baseUrl ?? config.dir, target.replace('*', star));
      const hit = base === null ? null : probe(base, project);
      if (hit !== null) return hit;
    }
  }
  if (config.baseUrl !== null) {
    const base = joinInside(config.baseUrl, clean);
    if (base !== null) return probe(base, project);
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

function tsPathsFor(dir: string, project: ProjectIndex, configs: Map<string, TsPaths | null>): TsPaths | null {
  const configPath = project.nearest(dir, 'tsconfig.json') ?? project.nearest(dir, 'jsconfig.json');
  if (configPath === undefined) return null;
  if (!configs.has(configPath)) configs.set(configPath, parseTsConfig(configPath, project));
  return configs.get(configPath) ?? null;
}

function parseTsConfig(path: string, project: ProjectIndex): TsPaths | null {
  const text = project.content(path) ?? '';
  let json: { compilerOptions?: { baseUrl?: unknown; paths?: unknown } };
  try {
    json = JSON.parse(stripCStyleComments(text).replace(/,(\s*[}\]])/g, '$1')) as typeof json;
  } catch {
    project.warnings.push(`dependency_depth: ${path} is not valid JSON; its paths/baseUrl are ignored`);
    return null;
  }
  const dir = dirOf(path);
  const options = json.compilerOptions ?? {};
  const baseUrl = typeof options.baseUrl === 'string' ? joinInside(dir, options.baseUrl) : null;
  const paths: TsPaths['paths'] = [];
  if (options.paths !== null && typeof options.paths === 'object') {
    for (const [pattern, targets] of Object.entries(options.paths as Record<string, unknown>)) {
      if (!Array.isArray(targets)) continue;
      const star = pattern.indexOf('*');
      paths.push({
        prefix: star === -1 ? pattern : pattern.slice(0, star),
        suffix: star === -1 ? '' : pattern.slice(star + 1),
        wildcard: star !== -1,
        targets: targets.filter((t): t is string => typeof t === 'string'),
      });
    }
  }
  if (baseUrl === null && paths.length === 0) return null;
  return { dir, baseUrl, paths };
}
