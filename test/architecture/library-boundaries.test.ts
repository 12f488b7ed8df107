import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The floors of ARCHITECTURE.md, checked on the source text: only the entry edge (src/cli,
 * bin/) touches the process, and the lower floors import nothing from the floors above them.
 */
const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The code without its comments, so a doc comment may name what the code must not do. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

const library = sourceFiles(SRC)
  .map((path) => relative(SRC, path).split('\\').join('/'))
  .filter((path) => !path.startsWith('cli/'));

describe('library modules leave the process to the entry edge (src/cli, bin/)', () => {
  it('has library modules to check', () => {
    expect(library.length).toBeGreaterThan(100);
    expect(library).toContain('pipeline.ts');
  });

  it.each(library)('%s reads neither process.env nor process.argv', (path) => {
    const hits = code(join(SRC, path)).match(/\bprocess\s*(?:\.\s*|\[\s*['"`])(?:env|argv)\b/g) ?? [];
    expect(hits).toEqual([]);
  });

  it('sees a violation when there is one', () => {
    expect('const key = process.env.API_KEY;'.match(/\bprocess\s*(?:\.\s*|\[\s*['"`])(?:env|argv)\b/g)).toEqual(['process.env']);
    expect("const a = process['argv'];".match(/\bprocess\s*(?:\.\s*|\[\s*['"`])(?:env|argv)\b/g)).toEqual(["process['argv"]);
  });
});

/** A floor and the folders above it that it must not import from. */
const FLOORS: Array<[string, string[]]> = [
  ['config/', ['summarize/', 'scoring/', 'allocate/', 'assemble/', 'manifest/', 'provider/', 'cli/']],
  ['collect/', ['scoring/', 'summarize/', 'allocate/', 'assemble/', 'manifest/', 'provider/', 'cli/']],
];

describe('no import runs back up the floors', () => {
  it.each(FLOORS)('%s imports nothing from %j', (floor, above) => {
    const offending = library
      .filter((path) => path.startsWith(floor))
      .flatMap((path) =>
        [...code(join(SRC, path)).matchAll(/from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)]
          .map((m) => join(path, '..', m[1] ?? m[2]!).split('\\').join('/'))
          .filter((target) => above.some((folder) => target.startsWith(folder)))
          .map((target) => `${path} -> ${target}`),
      );
    expect(offending).toEqual([]);
  });
});
