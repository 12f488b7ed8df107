import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { createRootReader, manifestPathProblem, normalizeManifestPath, toRootRelative } from '../../src/manifest/paths.js';
import { assembleWorkingSet } from '../../src/manifest/working-set/assemble.js';
import { validateWorkingSet } from '../../src/manifest/working-set/schema.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';

describe('manifest path rules', () => {
  it.each([
    ['src/a.ts', null],
    ['./src/a.ts', null],
    ['src/../README.md', null],
    ['../x', /outside the root through "\.\."/],
    ['src/../../x', /outside the root through "\.\."/],
    ['..', /outside the root/],
    ['/etc/passwd', /is absolute/],
    ['C:\\Windows\\x', /is absolute/],
    ['.', /names the root itself/],
    ['', /is empty/],
  ])('%j -> %s', (path, problem) => {
    const found = manifestPathProblem(path);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it.each([
    ['./src//a.ts', 'src/a.ts'],
    ['src\\win\\a.ts', 'src/win/a.ts'],
    ['docs/', 'docs'],
    ['a/./b/../c.md', 'a/c.md'],
  ])('normalizes %j to %j', (path, expected) => {
    expect(normalizeManifestPath(path)).toBe(expected);
  });

  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['/repo/src/a.ts', 'src/a.ts'],
  ])('toRootRelative(%j) = %j', (typed, expected) => {
    expect(toRootRelative('/repo', typed)).toBe(expected);
  });

  it.each(['/etc/passwd', '../other/x', '/repo'])('toRootRelative refuses %j', (typed) => {
    expect(() => toRootRelative('/repo', typed)).toThrow(InputError);
  });
});

describe('createRootReader (real files, symlinks)', () => {
  let fixture: Fixture;
  let outside: Fixture;
  beforeEach(() => {
    fixture = makeTempDir();
    outside = makeTempDir();
    fixture.write('src/a.ts', 'export const a = 1;\n');
    mkdirSync(join(fixture.root, 'dir'));
    writeFileSync(join(outside.root, 'secret.txt'), 'TOP SECRET');
    symlinkSync(join(outside.root, 'secret.txt'), join(fixture.root, 'leak.txt'));
    symlinkSync(outside.root, join(fixture.root, 'outdir'));
    symlinkSync(join(fixture.root, 'src', 'a.ts'), join(fixture.root, 'alias.ts'));
  });
  afterEach(() => {
    fixture.cleanup();
    outside.cleanup();
  });

  it('reads files inside the root, through symlinks that stay inside', async () => {
    const read = createRootReader(fixture.root);
    expect(await read('src/a.ts')).toEqual({ kind: 'ok', content: 'export const a = 1;\n' });
    expect(await read('alias.ts')).toEqual({ kind: 'ok', content: 'export const a = 1;\n' });
  });

  it('redacts credentials pasted into a file unless told to keep them', async () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    fixture.write('src/config.ts', `export const TOKEN = '${token}';\n`);
    expect(await createRootReader(fixture.root)('src/config.ts')).toEqual({ kind: 'ok', content: "export const TOKEN = '[REDACTED github-token]';\n" });
    expect(await createRootReader(fixture.root, { redactSecrets: false })('src/config.ts')).toEqual({ kind: 'ok', content: `export const TOKEN = '${token}';\n` });
  });

  it('reports missing files, directories and binary files instead of failing', async () => {
    const read = createRootReader(fixture.root);
    expect(await read('nope.md')).toEqual({ kind: 'missing', reason: 'not found' });
    expect(await read('src/a.ts/x')).toEqual({ kind: 'missing', reason: 'not found' });
    expect(await read('dir')).toEqual({ kind: 'missing', reason: 'not a regular file' });
    writeFileSync(join(fixture.root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(await read('image.png')).toEqual({ kind: 'missing', reason: 'binary file (contains NUL bytes)' });
  });

  it.each([
    ['a symlinked file leading out', 'leak.txt', /is a symlink leading outside the root/],
    ['a file under a symlinked directory leading out', 'outdir/secret.txt', /is a symlink leading outside the root/],
    ['..', '../x', /outside the root through "\.\."/],
    ['an absolute path', '/etc/hostname', /is absolute/],
  ])('refuses %s with a clear error', async (_name, path, message) => {
    const read = createRootReader(fixture.root);
    await expect(read(path)).rejects.toThrow(InputError);
    await expect(read(path)).rejects.toThrow(message);
  });

  it('assembly fails clearly on a symlink leading out (and never reads it)', async () => {
    const manifest = validateWorkingSet(
      { protocol: 'CONTEXT-ASSEMBLY/0.1', budget: { max_tokens: 5000 }, files: [{ path: 'src/a.ts', priority: 1 }, { path: 'leak.txt', priority: 0.5 }] },
      'ws.yml',
    );
    const run = assembleWorkingSet(
      manifest,
      { root: fixture.root, manifestPath: 'ws.yml', tokenizer: createChars4Tokenizer() },
      { readFile: createRootReader(fixture.root) },
    );
    await expect(run).rejects.toThrow(/working-set path "leak\.txt" is a symlink leading outside the root/);
  });
});
