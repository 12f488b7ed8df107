import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { runCli } from '../helpers/fakes.js';
import { CACHE_GITIGNORE, RAG_GITIGNORE } from '../../src/cache/own-dirs.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';

/** What a new user meets on the first runs in a clean repository. */
const fixtures: Fixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));

function repo(extra: Record<string, string> = {}): Fixture {
  const fixture = makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/retry.ts': '/** Retry loop of the http client. */\nexport function retry(times: number): number {\n  return times + 1;\n}\n',
        'src/client.ts': "import { retry } from './retry.js';\n/** The http client. */\nexport const client = { retry };\n",
        'README.md': '# demo\n\nAn http client with a retry loop.\n',
        ...extra,
      },
    },
  ]);
  fixtures.push(fixture);
  return fixture;
}

function status(fixture: Fixture): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: fixture.root, encoding: 'utf8' });
}

describe('a small budget', () => {
  it('--max-tokens 8000 works: unset reserves scale down, the warning is in the record and the report', async () => {
    const fixture = repo();
    const json = await runCli(['context-budget', 'fix the retry loop', '--max-tokens', '8000', '--scoring', 'keyword', '--json'], fixture.root);
    expect(json.code).toBe(0);
    const record = JSON.parse(json.stdout) as BudgetRecord;
    expect(record.total_budget).toBe(8000);
    expect(record.reserved).toEqual({ output: 3200, system: 800 });
    expect(record.available).toBe(4000);
    expect(record.warnings[0]).toMatch(/^max_tokens 8000 is small: .* scaled to 3200, 800/);
    expect(json.stderr).toContain('warning: max_tokens 8000 is small');

    const human = await runCli(['context-budget', 'fix the retry loop', '--max-tokens', '8000', '--scoring', 'keyword'], fixture.root);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Warning: max_tokens 8000 is small');
  });

  it('reserves set on purpose keep the clear error, exit code 2', async () => {
    const fixture = repo();
    const result = await runCli(['context-budget', 'fix the retry loop', '--max-tokens', '8000', '--reserve-output', '8000'], fixture.root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('leaves nothing of max_tokens (8000): raise max_tokens above');
  });
});

describe('the tool keeps its own files out of git and out of contexts', () => {
  it('git status is clean after runs; .aiwg/rag/ ignores itself; the next run collects none of it', async () => {
    const fixture = repo();
    expect(status(fixture)).toBe('');
    const first = await runCli(['context-budget', 'fix the retry loop', '--scoring', 'keyword'], fixture.root);
    expect(first.code).toBe(0);
    expect(await runCli(['summarize', 'src/retry.ts'], fixture.root)).toMatchObject({ code: 0 });
    expect(await runCli(['handoff-context', '--phase', '2'], fixture.root)).toMatchObject({ code: 0 });
    expect(readFileSync(join(fixture.root, '.aiwg/rag/.gitignore'), 'utf8')).toBe(RAG_GITIGNORE);
    expect(existsSync(join(fixture.root, '.aiwg/rag/budget-records'))).toBe(true);
    expect(status(fixture)).toBe('');

    const second = await runCli(['context-budget', 'fix the retry loop', '--scoring', 'keyword', '--json'], fixture.root);
    const record = JSON.parse(second.stdout) as BudgetRecord;
    const included = Object.values(record.allocation).flatMap((tier) => tier.files.map((f) => f.path));
    expect(included).toContain('src/retry.ts');
    expect([...included, ...record.excluded.map((e) => e.path)].filter((p) => p.startsWith('.aiwg/rag/') && p !== '.aiwg/rag/')).toEqual([]);
    expect(status(fixture)).toBe('');
  });

  it('a config the user writes in .aiwg/rag/ stays visible to git; a cache dir inside the root ignores itself', async () => {
    const fixture = repo();
    fixture.write('.aiwg/rag/config.yaml', 'cache:\n  dir: .cache/aiwg\n');
    const result = await runCli(['context-budget', 'fix the retry loop', '--scoring', 'keyword'], fixture.root);
    expect(result.code).toBe(0);
    expect(readFileSync(join(fixture.root, '.cache/aiwg/.gitignore'), 'utf8')).toBe(CACHE_GITIGNORE);
    expect(status(fixture)).toBe('?? .aiwg/rag/config.yaml\n');
  });

  it('never overwrites a .gitignore the user wrote', async () => {
    const fixture = repo({ '.aiwg/rag/.gitignore': '*\n!config.yaml\n!notes.md\n' });
    await runCli(['context-budget', 'fix the retry loop', '--scoring', 'keyword'], fixture.root);
    expect(readFileSync(join(fixture.root, '.aiwg/rag/.gitignore'), 'utf8')).toBe('*\n!config.yaml\n!notes.md\n');
  });
});

describe('report, record and output file agree', () => {
  it.each(['xml', 'markdown', 'json'] as const)('on the tokens of every file (%s)', async (format) => {
    const fixture = repo();
    const result = await runCli(['context-budget', 'fix the retry loop in the http client', '--scoring', 'keyword', '--format', format, '--output', 'ctx.out', '--json'], fixture.root);
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as BudgetRecord;
    const output = readFileSync(join(fixture.root, 'ctx.out'), 'utf8');
    const inRecord = Object.values(record.allocation).flatMap((tier) => tier.files.map((f) => [f.path, f.tokens] as const));
    expect(inRecord.length).toBeGreaterThan(1);
    const inOutput = new Map<string, number>();
    if (format === 'xml') for (const m of output.matchAll(/<context path="([^"]+)" level="\w+" tokens="(\d+)"/g)) inOutput.set(m[1]!, Number(m[2]));
    if (format === 'markdown') for (const m of output.matchAll(/^### (.+)\n\nlevel: \w+ · tokens: (\d+)/gm)) inOutput.set(m[1]!, Number(m[2]));
    if (format === 'json') for (const m of output.matchAll(/\{"path":"([^"]+)","level":"\w+","tokens":(\d+)/g)) inOutput.set(m[1]!, Number(m[2]));
    expect([...inOutput.entries()].sort()).toEqual([...inRecord].sort());

    const human = await runCli(['context-budget', 'fix the retry loop in the http client', '--scoring', 'keyword', '--format', format, '--no-record'], fixture.root);
    for (const [path, tokens] of inRecord) expect(human.stdout).toMatch(new RegExp(`│ ${path.replace(/\./g, '\\.')} +│ +\\w+ │ +${tokens} │`));
  });
});
