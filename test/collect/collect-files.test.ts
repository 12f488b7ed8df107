import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { nodeFs } from '../../src/collect/collect-ports.js';
import { ConfigSchema, type ConfigInput } from '../../src/config/schema.js';
import type { CollectResult } from '../../src/types.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';

const JAN_01 = '2026-01-01T10:00:00Z';
const JAN_10 = '2026-01-10T12:30:00Z';
/** Built by concatenation so this test file itself never looks like it holds a key. */
const KEY_BLOCK = ['-----BEGIN', 'RSA PRIVATE', `KEY-----\n${'MIIEowIBAAKCAQEA7'.repeat(4)}\n-----END RSA PRIVATE KEY-----\n`].join(' ');
/** Code that only names the marker, as crypto libraries do. */
const KEY_MARKER_IN_CODE = `_SK_START = b"${['-----BEGIN', 'OPENSSH PRIVATE', 'KEY-----'].join(' ')}"\n`;

function ctx(collect: NonNullable<ConfigInput['collect']> = {}) {
  return testContext({ config: ConfigSchema.parse({ collect }) });
}

const collect = (root: string, collectConfig: NonNullable<ConfigInput['collect']> = {}) =>
  createCollectStage()({ root }, ctx(collectConfig));

const paths = (result: CollectResult) => result.files.map((f) => f.path);
const reasonOf = (result: CollectResult, path: string) => result.excluded.find((e) => e.path === path)?.reason;

describe('collect in a git repository', () => {
  let repo: Fixture;
  let outside: Fixture;
  let result: CollectResult;

  beforeAll(async () => {
    outside = makeTempDir('aiwg-outside-');
    outside.write('secret.txt', 'outside the root\n');
    repo = makeFixtureRepo(
      [
        {
          date: JAN_01,
          files: {
            '.gitignore': '*.log\nignored-dir/\n',
            'src/a.ts': 'export const a = 1;\n',
            'src/b.ts': 'export const b = 2;\n',
            'sub/.gitignore': 'local.txt\n',
            'sub/keep.md': '# kept\n',
            'package-lock.json': '{}\n',
            'docs/read me.md': 'spaces in the name\n',
            'docs/日本語.md': 'non-ASCII name\n',
            'vendor/lib/x.js': 'x\n',
            'vendor/lib/y.js': 'y\n',
            '.env': 'TOKEN=abc\n',
            '.env.example': 'TOKEN=\n',
            'keys/server.pem': 'not really\n',
            'web/app.min.js': 'var a=1;\n',
            'data/blob.txt': 'abc\u0000def\n',
            'big.txt': 'x'.repeat(3000),
          },
        },
        { date: JAN_10, files: { 'src/a.ts': 'export const a = 2;\n' } },
      ],
      {
        untracked: {
          'notes.txt': 'untracked but not ignored\n',
          'debug.log': 'ignored by the root .gitignore\n',
          'ignored-dir/file.ts': 'ignored directory\n',
          'sub/local.txt': 'ignored by the nested .gitignore\n',
          '.aiwg/rag/budget-records/r.json': '{}\n',
          'deploy/id.txt': `header\n${KEY_BLOCK}`,
          'lib/ssh.py': KEY_MARKER_IN_CODE,
        },
      },
    );
    repo.write('src/b.ts', 'export const b = 3;\n');
    writeFileSync(join(repo.root, 'bad-utf8.txt'), Buffer.from([0x61, 0xff, 0xfe, 0x62, 0x0a]));
    symlinkSync('src/a.ts', join(repo.root, 'link-in.ts'));
    symlinkSync(join(outside.root, 'secret.txt'), join(repo.root, 'link-out.txt'));
    symlinkSync('.env', join(repo.root, 'env-link.txt'));
    result = await collect(repo.root, { max_file_bytes: 2000 });
  });
  afterAll(() => {
    repo.cleanup();
    outside.cleanup();
  });

  it('lists tracked and untracked-not-ignored files, sorted by path, honouring nested .gitignore', () => {
    expect(paths(result)).toEqual([
      '.env.example',
      '.gitignore',
      'bad-utf8.txt',
      'docs/read me.md',
      'docs/日本語.md',
      'lib/ssh.py',
      'link-in.ts',
      'notes.txt',
      'src/a.ts',
      'src/b.ts',
      'sub/.gitignore',
      'sub/keep.md',
    ]);
  });

  it.each([
    ['package-lock.json', 'lockfile'],
    ['vendor/', 'vendored code (2 files)'],
    ['.aiwg/rag/', "aiwg's own directory (config, caches and records) (1 file)"],
    ['web/app.min.js', 'generated or minified file (*.min.js)'],
    ['data/blob.txt', 'binary file (NUL byte in the first 8 KB)'],
    ['big.txt', 'too large: 3,000 bytes > collect.max_file_bytes 2,000'],
    ['link-out.txt', 'symlink resolves outside the root: not followed'],
  ])('excludes %s: %s', (path, reason) => {
    expect(reasonOf(result, path)).toBe(reason);
  });

  it.each([['.env'], ['keys/server.pem'], ['deploy/id.txt'], ['env-link.txt']])('excludes the secret %s', (path) => {
    expect(reasonOf(result, path)).toMatch(/secret: .*collect\.include_secrets/);
  });

  it('never lists ignored files, not even as excluded', () => {
    const all = [...paths(result), ...result.excluded.map((e) => e.path)];
    for (const ignored of ['debug.log', 'ignored-dir/file.ts', 'ignored-dir/', 'sub/local.txt']) expect(all).not.toContain(ignored);
  });

  it('decodes invalid UTF-8 with replacement characters and hashes the raw bytes as git does', () => {
    const file = result.files.find((f) => f.path === 'bad-utf8.txt');
    expect(file?.content).toBe('a\uFFFD\uFFFDb\n');
    expect(file?.hash).toBe(createHash('sha1').update('blob 5\0').update(Buffer.from([0x61, 0xff, 0xfe, 0x62, 0x0a])).digest('hex'));
    expect(file?.hash).toBe(execFileSync('git', ['hash-object', 'bad-utf8.txt'], { cwd: repo.root, encoding: 'utf8' }).trim());
    expect(file?.size).toBe(5);
    expect(file?.lineCount).toBe(1);
  });

  it('reads a symlink inside the root through its target', () => {
    expect(result.files.find((f) => f.path === 'link-in.ts')?.content).toBe('export const a = 2;\n');
  });

  it('gets last commit times from git log, exact to the fixed dates', () => {
    expect(result.git.isRepo).toBe(true);
    expect(result.git.lastCommitMs.get('src/a.ts')).toBe(Date.parse(JAN_10));
    expect(result.git.lastCommitMs.get('src/b.ts')).toBe(Date.parse(JAN_01));
    expect(result.git.lastCommitMs.get('docs/日本語.md')).toBe(Date.parse(JAN_01));
    expect(result.git.lastCommitMs.has('notes.txt')).toBe(false);
  });

  it('marks modified and untracked files dirty, and records HEAD', () => {
    expect(result.git.dirty.has('src/b.ts')).toBe(true);
    expect(result.git.dirty.has('notes.txt')).toBe(true);
    expect(result.git.dirty.has('src/a.ts')).toBe(false);
    expect(result.git.head).toMatch(/^[0-9a-f]{40}$/);
    expect(result.git.isShallow).toBe(false);
    expect(result.warnings).toEqual([]);
  });

  it('includes secrets only when the config opts in, and .env.example always', async () => {
    const opted = await collect(repo.root, { include_secrets: true });
    expect(paths(opted)).toEqual(expect.arrayContaining(['.env', '.env.example', 'keys/server.pem', 'deploy/id.txt', 'env-link.txt']));
  });

  it('applies collect.ignore globs with a reason', async () => {
    const ignored = await collect(repo.root, { ignore: ['docs/', '*.example'] });
    expect(reasonOf(ignored, 'docs/')).toBe('ignored by collect.ignore "docs/" (2 files)');
    expect(reasonOf(ignored, '.env.example')).toBe('ignored by collect.ignore "*.example"');
  });

  it('is deterministic', async () => {
    const again = await collect(repo.root, { max_file_bytes: 2000 });
    expect(again.files).toEqual(result.files);
    expect(again.excluded).toEqual(result.excluded);
  });
});

describe('collect with a subdirectory root', () => {
  it('keeps paths, commit times and dirty paths relative to the given root', async () => {
    const repo = makeFixtureRepo([
      { date: JAN_01, files: { 'README.md': 'top\n', 'packages/app/src/main.ts': 'main\n', 'packages/app/old.ts': 'old\n' } },
      { date: JAN_10, files: { 'packages/app/src/main.ts': 'main 2\n', 'README.md': 'top 2\n' } },
    ]);
    try {
      repo.write('packages/app/old.ts', 'changed\n');
      const result = await collect(join(repo.root, 'packages/app'));
      expect(paths(result)).toEqual(['old.ts', 'src/main.ts']);
      expect(Object.fromEntries(result.git.lastCommitMs)).toEqual({ 'old.ts': Date.parse(JAN_01), 'src/main.ts': Date.parse(JAN_10) });
      expect([...result.git.dirty]).toEqual(['old.ts']);
    } finally {
      repo.cleanup();
    }
  });
});

describe('collect edge repositories', () => {
  it('handles a repository without commits', async () => {
    const repo = makeFixtureRepo([], { untracked: { 'a.ts': 'a\n' } });
    try {
      const result = await collect(repo.root);
      expect(paths(result)).toEqual(['a.ts']);
      expect(result.git.head).toBeUndefined();
      expect(result.git.lastCommitMs.size).toBe(0);
      expect(result.git.dirty.has('a.ts')).toBe(true);
    } finally {
      repo.cleanup();
    }
  });

  it('warns on a shallow clone', async () => {
    const origin = makeFixtureRepo([
      { date: JAN_01, files: { 'a.ts': 'a\n' } },
      { date: JAN_10, files: { 'b.ts': 'b\n' } },
    ]);
    const clone = makeTempDir('aiwg-shallow-');
    try {
      execFileSync('git', ['clone', '-q', '--depth', '1', `file://${origin.root}`, join(clone.root, 'c')]);
      const result = await collect(join(clone.root, 'c'));
      expect(result.git.isShallow).toBe(true);
      expect(result.warnings.some((w) => w.startsWith('shallow clone'))).toBe(true);
      expect(result.git.lastCommitMs.get('a.ts')).toBe(Date.parse(JAN_10));
    } finally {
      origin.cleanup();
      clone.cleanup();
    }
  });

  it('excludes minified content and generated markers found in the content', async () => {
    const repo = makeFixtureRepo([
      {
        date: JAN_01,
        files: {
          'bundle.js': `${'a'.repeat(5000)}\n`,
          'gen.go': '// Code generated by protoc. DO NOT EDIT.\npackage x\n',
          'ok.ts': 'const ok = true;\n',
          '.npmrc': '//registry.npmjs.org/:_authToken=abc\n',
          'pkg/.npmrc': 'save-exact=true\n',
        },
      },
    ]);
    try {
      const result = await collect(repo.root);
      expect(paths(result)).toEqual(['ok.ts', 'pkg/.npmrc']);
      expect(reasonOf(result, 'bundle.js')).toBe('generated or minified: average line length 5001 chars');
      expect(reasonOf(result, 'gen.go')).toBe('generated file (marker in its first lines)');
      expect(reasonOf(result, '.npmrc')).toMatch(/^secret: \.npmrc with credentials/);
    } finally {
      repo.cleanup();
    }
  });
});

describe('collect outside a git repository', () => {
  let dir: Fixture;
  beforeAll(() => {
    dir = makeTempDir('aiwg-plain-');
    dir.write('.gitignore', '*.log\n/out/\n!keep.log\n');
    dir.write('main.ts', 'main\n');
    dir.write('run.log', 'ignored\n');
    dir.write('keep.log', 're-included\n');
    dir.write('out/x.ts', 'ignored dir\n');
    dir.write('lib/.gitignore', 'tmp-*\n');
    dir.write('lib/tmp-1.ts', 'ignored by nested\n');
    dir.write('lib/util.ts', 'util\n');
    dir.write('lib/out/y.ts', 'anchored /out/ does not match here\n');
    dir.write('node_modules/pkg/index.js', 'dep\n');
    dir.write('yarn.lock', 'lock\n');
  });
  afterAll(() => dir.cleanup());

  it('walks the tree, honours .gitignore files and warns that git signals are off', async () => {
    const result = await collect(dir.root);
    expect(paths(result)).toEqual(['.gitignore', 'keep.log', 'lib/.gitignore', 'lib/out/y.ts', 'lib/util.ts', 'main.ts']);
    expect(result.warnings).toEqual(['not a git repository: recency and history signals are off']);
    expect(result.git).toEqual({ isRepo: false, lastCommitMs: new Map(), dirty: new Set() });
    expect(reasonOf(result, 'node_modules/')).toBe('dependency directory (not walked)');
    expect(reasonOf(result, 'yarn.lock')).toBe('lockfile');
  });

  it('records a vanishing or unreadable file with a reason instead of failing', async () => {
    const real = nodeFs();
    const fs = {
      ...real,
      readFile: async (path: string) => {
        if (path.endsWith('main.ts')) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
        if (path.endsWith('util.ts')) throw Object.assign(new Error('denied'), { code: 'EACCES' });
        return real.readFile(path);
      },
    };
    const result = await createCollectStage({ fs })({ root: dir.root }, ctx());
    expect(reasonOf(result, 'main.ts')).toBe('vanished before it could be read (deleted in the working tree?)');
    expect(reasonOf(result, 'lib/util.ts')).toBe('unreadable (EACCES)');
    expect(paths(result)).not.toContain('main.ts');
  });

  it('fails with an input error when the root does not exist', async () => {
    await expect(collect(join(dir.root, 'missing'))).rejects.toThrow(/root .*missing: cannot be read \(ENOENT\)/);
  });
});

describe('collect on a symlinked directory', () => {
  it('does not follow a symlink to a directory', async () => {
    const dir = makeTempDir('aiwg-dirlink-');
    try {
      mkdirSync(join(dir.root, 'real'));
      dir.write('real/a.ts', 'a\n');
      symlinkSync('real', join(dir.root, 'alias'));
      const result = await collect(dir.root);
      expect(paths(result)).toEqual(['real/a.ts']);
      expect(reasonOf(result, 'alias')).toBe('symlink to a directory: not followed');
    } finally {
      dir.cleanup();
    }
  });
});
