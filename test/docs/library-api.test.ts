import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The package's public API is what docs/library.md says, no more and no less: the names of
 * its "The public API" table against the exports of the built entry (dist/src/index.d.ts for
 * values and types, dist/src/index.js for what exists at run time). `npm test` builds first.
 */
const DOC = resolve('docs/library.md');
const ENTRY_JS = resolve('dist/src/index.js');
const ENTRY_DTS = resolve('dist/src/index.d.ts');

function documentedNames(): string[] {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf('\n## The public API\n');
  expect(start).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
}

function declaredNames(): string[] {
  const program = ts.createProgram([ENTRY_DTS], { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY_DTS)!;
  const module = checker.getSymbolAtLocation(source)!;
  return checker.getExportsOfModule(module).map((symbol) => symbol.getName());
}

describe('docs/library.md lists exactly the public API', () => {
  it('the built entry exists (npm test builds it)', () => {
    expect(existsSync(ENTRY_JS) && existsSync(ENTRY_DTS)).toBe(true);
  });

  it('names every export of the package entry once, values and types, and nothing else', () => {
    const documented = documentedNames();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(declaredNames().sort());
  });

  it('every runtime export is documented, and stays a curated handful (about 40 names)', async () => {
    const runtime = Object.keys((await import(pathToFileURL(ENTRY_JS).href)) as object);
    expect(runtime.filter((name) => !documentedNames().includes(name))).toEqual([]);
    expect(declaredNames().length).toBeLessThanOrEqual(50);
  });
});
