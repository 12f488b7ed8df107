import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { BudgetRecordSchema, type BudgetRecord } from '../../src/record/record-schema.js';
import { buildTokenTree, renderTokenTree } from '../../src/record/token-tree.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { makeRecord, recordFile } from '../record/record-fixtures.js';

/** `--include` / collect.include narrow the candidates; `--tree` shows tokens per folder. Real CLI runs on a git fixture. */
const FILES: Record<string, string> = {
  'src/http/client.ts': "import { backoff } from './retry.js';\nexport async function request(url: string) {\n  // retry with backoff after a timeout\n  return backoff(3);\n}\n",
  'src/http/retry.ts': 'export function backoff(attempt: number): number {\n  return 2 ** attempt * 100; // retry delay\n}\n',
  'src/log.ts': 'export function log(message: string) {\n  console.log(message);\n}\n',
  'docs/http.md': '# HTTP client\n\nThe client retries with backoff after a timeout.\n',
  'test/retry.test.ts': "import { backoff } from '../src/http/retry.js';\nexport const retryDelay = backoff(2);\n",
  'README.md': '# Service\n\nAn http client with retry and backoff.\n',
};
const TASK = 'the http retry backoff after a timeout';
const FLAGS = ['--scoring', 'keyword', '--tokenizer', 'chars4', '--no-record'];

let repo: Fixture;
beforeAll(() => {
  repo = makeFixtureRepo([{ files: FILES, date: '2026-01-05T10:00:00Z' }]);
});
afterAll(() => repo.cleanup());

const run = (argv: string[]) => runCli(['context-budget', TASK, ...FLAGS, ...argv, '--root', repo.root], repo.root, { NO_COLOR: '1' });
const record = async (argv: string[]): Promise<BudgetRecord> => {
  const { code, stdout, stderr } = await run([...argv, '--json']);
  expect(code, stderr).toBe(0);
  return BudgetRecordSchema.parse(JSON.parse(stdout));
};
const includedPaths = (r: BudgetRecord) => [...r.allocation.primary.files, ...r.allocation.supporting.files, ...r.allocation.reference.files].map((f) => f.path).sort();
const reasonOf = (r: BudgetRecord, path: string) => r.excluded.find((e) => e.path === path)?.reason;

describe('--include and collect.include', () => {
  it('keeps only files matching the globs, and says why the others are out', async () => {
    const r = await record(['--include', 'src/**']);
    expect(includedPaths(r).length).toBeGreaterThan(0);
    expect(includedPaths(r).every((p) => p.startsWith('src/'))).toBe(true);
    expect(reasonOf(r, 'docs/http.md')).toBe('not matched by collect.include (src/**)');
    expect(reasonOf(r, 'README.md')).toBe('not matched by collect.include (src/**)');
  });

  it('takes several globs: a directory with a trailing slash and a name pattern at any depth', async () => {
    const r = await record(['--include', 'src/http/', '--include', '*.md']);
    const candidates = [...includedPaths(r), ...r.excluded.filter((e) => !e.reason.startsWith('not matched')).map((e) => e.path)].sort();
    expect(candidates).toEqual(['README.md', 'docs/http.md', 'src/http/client.ts', 'src/http/retry.ts']);
    expect(reasonOf(r, 'src/log.ts')).toBe('not matched by collect.include (src/http/, *.md)');
  });

  it('reads collect.include from the config file; the flag replaces it', async () => {
    mkdirSync(join(repo.root, '.aiwg', 'rag'), { recursive: true });
    writeFileSync(join(repo.root, '.aiwg', 'rag', 'config.yaml'), 'collect:\n  include: ["docs/**"]\n');
    try {
      expect(includedPaths(await record([]))).toEqual(['docs/http.md']);
      expect(includedPaths(await record(['--include', 'test/**']))).toEqual(['test/retry.test.ts']);
    } finally {
      writeFileSync(join(repo.root, '.aiwg', 'rag', 'config.yaml'), '{}\n');
    }
  });

  it('still applies collect.ignore to included files', async () => {
    const r = await record(['--include', 'src/**', '--config', writeConfig('collect:\n  ignore: ["src/log.ts"]\n')]);
    expect(reasonOf(r, 'src/log.ts')).toBe('ignored by collect.ignore "src/log.ts"');
  });

  it('refuses an empty glob with exit 2 and one line', async () => {
    const { code, stderr } = await run(['--include', ' ']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--include needs a glob/);
  });
});

describe('--tree', () => {
  it('prints tokens per folder: included from the record, left out from the other candidates\' contents', async () => {
    const { code, stdout } = await run(['--tree']);
    expect(code).toBe(0);
    const r = await record([]);
    const tokenizer = await createTokenizer('chars4');
    const inContext = new Set(includedPaths(r));
    const leftOut = (prefix: string) => Object.entries(FILES).filter(([p]) => p.startsWith(prefix) && !inContext.has(p)).reduce((s, [, c]) => s + tokenizer.count(c), 0);
    const included = (prefix: string) =>
      [...r.allocation.primary.files, ...r.allocation.supporting.files, ...r.allocation.reference.files].filter((f) => f.path.startsWith(prefix)).reduce((s, f) => s + f.tokens, 0);
    const tree = stdout.slice(stdout.indexOf('TOKEN TREE'));
    expect(tree).toMatch(/^TOKEN TREE \(tokens per folder: included = what the context holds, left out = whole content of the candidates not in it; files included\/considered\):\n {2}Folder +Included +Left out +Files\n/);
    /** The last three cells (included, left out, files) of the row naming `label`. */
    const row = (label: string) => tree.split('\n').find((l) => l.trimStart().startsWith(`${label} `) || l.includes(`── ${label} `))!.trim().split(/\s+/).slice(-3);
    expect(inContext.size).toBeLessThan(Object.keys(FILES).length);
    expect(row('.')).toEqual([String(included('')), String(leftOut('')), `${inContext.size}/${Object.keys(FILES).length}`]);
    expect(row('src/')).toEqual([String(included('src/')), String(leftOut('src/')), `${includedPaths(r).filter((p) => p.startsWith('src/')).length}/3`]);
    expect(row('http/').slice(0, 2)).toEqual([String(included('src/http/')), String(leftOut('src/http/'))]);
    expect(tree).toContain('├── docs/');
    expect(tree).toContain('│   └── http/');
  });

  it('is refused with --json (the record is the only stdout then)', async () => {
    const { code, stderr } = await run(['--tree', '--json']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--tree .* --json .*pass one/);
  });
});

describe('buildTokenTree', () => {
  it('sums included and considered tokens at every folder, folders before files, sorted', () => {
    const record = makeRecord({
      runId: 'r',
      timestamp: '2026-01-10T09:00:00.000Z',
      rendered: 100,
      files: { primary: [recordFile('a/x.ts', 'full', 10)], reference: [recordFile('b.md', 'stub', 2)] },
    });
    const tree = buildTokenTree(record, [
      { path: 'b.md', tokens: 30 },
      { path: 'a/x.ts', tokens: 10 },
      { path: 'a/y/z.ts', tokens: 5 },
    ]);
    expect(tree).toMatchObject({ name: '.', includedTokens: 12, leftOutTokens: 5, includedFiles: 2, consideredFiles: 3 });
    expect(tree.children.map((c) => c.name)).toEqual(['a', 'b.md']);
    expect(tree.children[0]).toMatchObject({ includedTokens: 10, leftOutTokens: 5, includedFiles: 1, consideredFiles: 2 });
    expect(renderTokenTree(tree, { files: true })).toContain('│   └── z.ts');
  });
});

function writeConfig(text: string): string {
  const path = join(repo.root, '..', `cfg-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, text);
  return path;
}
