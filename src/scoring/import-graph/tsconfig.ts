import { posix } from 'node:path';
import { createPathsMatcher, parseTsconfig } from 'get-tsconfig';
import { parseJsonLenient } from '../../util/jsonc.js';
import type { ProjectIndex } from './project.js';

/**
 * tsconfig/jsconfig path aliases through get-tsconfig (the maintained reader: JSONC, `extends`
 * chains, `paths` globs, `baseUrl`, `${configDir}`). get-tsconfig reads through an fs cache
 * keyed `<fs function>:<args>`; we hand it a cache that answers every key from the collected
 * files, so nothing is read from disk, nothing outside the root is ever touched, and the
 * import graph stays a pure function of the candidates.
 */

/** Maps a bare specifier to root-relative candidate bases (without extension probing), in tsconfig order. */
export type AliasResolver = (specifier: string) => string[];

/** Absolute prefix the collected files are mounted under for get-tsconfig; never touches disk. */
const VIRTUAL_ROOT = '/__aiwg_root__';

/**
 * The alias resolver of the tsconfig at `configPath` (root-relative), or null when it has no
 * `paths` or `baseUrl`. An invalid file, or an `extends` that leaves the collected files, adds a
 * warning to `project.warnings`.
 */
export function readTsconfigAliases(configPath: string, project: ProjectIndex): AliasResolver | null {
  const text = project.content(configPath) ?? '';
  try {
    parseJsonLenient(text);
  } catch {
    project.warnings.push(`dependency_depth: ${configPath} is not valid JSON; its paths/baseUrl are ignored`);
    return null;
  }
  const fs = new VirtualFsCache(project);
  const absolute = `${VIRTUAL_ROOT}/${configPath}`;
  let matcher: ((specifier: string) => string[]) | null;
  try {
    // get-tsconfig types its cache Map<string, string> but keeps every fs call's result in it.
    const config = parseTsconfig(absolute, fs as unknown as Map<string, string>);
    matcher = createPathsMatcher({ path: absolute, config });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    project.warnings.push(`dependency_depth: ${configPath} could not be read (${why}); its paths/baseUrl are ignored`);
    return null;
  }
  for (const missing of fs.missingPackages) {
    project.warnings.push(`dependency_depth: ${configPath} extends ${missing}, which is not among the collected files; read without it`);
  }
  if (matcher === null) return null;
  const resolve = matcher;
  return (specifier) =>
    resolve(specifier)
      .map((abs) => posix.relative(VIRTUAL_ROOT, abs.split('\\').join('/')))
      .filter((rel) => rel !== '' && !rel.startsWith('..'));
}

/**
 * The fs get-tsconfig sees: the collected files under VIRTUAL_ROOT. A package under
 * `node_modules/` (collect skips those) reads as an empty config, so a tsconfig extending
 * `@tsconfig/node20` keeps its own `paths`; each such package is reported once.
 */
class VirtualFsCache extends Map<string, unknown> {
  readonly missingPackages = new Set<string>();
  constructor(private readonly project: ProjectIndex) {
    super();
  }

  override get(key: string): unknown {
    const colon = key.indexOf(':');
    const op = key.slice(0, colon);
    const abs = op === 'readFileSync' ? key.slice(colon + 1).replace(/:utf-?8$/, '') : key.slice(colon + 1);
    const rel = posix.relative(VIRTUAL_ROOT, abs);
    const inside = !rel.startsWith('..') && !posix.isAbsolute(rel);
    const isFile = inside && this.project.has(rel);
    const isDir = inside && this.project.isDirectory(rel);
    const pkg = inside ? packageOf(rel) : undefined;
    const stub = !isFile && !isDir && pkg !== undefined && rel.endsWith('.json') && !rel.endsWith('/package.json');
    switch (op) {
      case 'existsSync':
        return isFile || isDir || stub || (pkg !== undefined && rel === `node_modules/${pkg}`);
      case 'statSync':
        return { isFile: () => isFile || stub, isDirectory: () => !(isFile || stub) };
      case 'realpathSync':
        return abs;
      case 'readFileSync':
        if (isFile) return this.project.content(rel) ?? '';
        if (stub && pkg !== undefined) {
          this.missingPackages.add(rel.slice('node_modules/'.length));
          return '{}';
        }
        throw new Error(`${rel} is not among the collected files`);
      default:
        throw new Error(`unexpected file system call ${op}`);
    }
  }
}

/** `@scope/name` or `name` of a path under the root's node_modules/, else undefined. */
function packageOf(rel: string): string | undefined {
  const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
  return m?.[1];
}
