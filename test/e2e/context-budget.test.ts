import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { runBin as aiwg } from '../helpers/run-bin.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { TIER_NAMES } from '../../src/config/schema.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';

const schema = JSON.parse(readFileSync(resolve('schemas/budget-record.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

/** A small service with an auth module, its test, docs and config; dates fixed for recency. */
function authRepo(): Fixture {
  const body = (name: string, lines: number) =>
    Array.from({ length: lines }, (_, i) => `  // ${name} step ${i}: validate and normalise the input before use\n  total += ${i};`).join('\n');
  return makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/auth/token-manager.ts': `import { signJwt } from './jwt.js';\n\n/** Issues and refreshes access tokens. */\nexport class TokenManager {\n  refreshToken(userId: string): string {\n    let total = 0;\n${body('refresh', 30)}\n    return signJwt(userId + total);\n  }\n}\n`,
        'src/auth/jwt.ts': `/** JWT signing helpers. */\nexport function signJwt(payload: string): string {\n  let total = 0;\n${body('sign', 20)}\n  return Buffer.from(payload).toString('base64') + total;\n}\n`,
        'src/billing/invoice.ts': `/** Invoice totals. */\nexport function invoiceTotal(lines: number[]): number {\n  let total = 0;\n${body('invoice', 40)}\n  return total;\n}\n`,
        'test/auth/token-manager.test.ts': `import { TokenManager } from '../../src/auth/token-manager.js';\n// refresh token tests\nconsole.log(new TokenManager().refreshToken('u'));\n`,
        'docs/security.md': '# Security\n\nAccess tokens are JWTs refreshed by the token manager.\n',
        'package.json': '{ "name": "svc", "version": "1.0.0" }\n',
        '.env': 'API_TOKEN=super-secret-value\n',
        'my notes/ünïcode file.md': '# Notes\n\nnothing about tokens here, only billing invoices.\n',
      },
    },
    { date: '2026-01-10T10:00:00Z', files: { 'src/auth/jwt.ts': `/** JWT signing helpers (HS256). */\nexport function signJwt(payload: string): string {\n  return payload;\n}\n` } },
  ]);
}

describe('aiwg context-budget (built CLI, end to end)', () => {
  let repo: Fixture;
  let scratch: Fixture;
  beforeAll(() => {
    repo = authRepo();
    scratch = makeTempDir();
  });
  afterAll(() => {
    repo.cleanup();
    scratch.cleanup();
  });

  it('prints one schema-valid JSON record whose tokens never exceed the available budget', async () => {
    const out = join(scratch.root, 'context.xml');
    const { code, stdout, stderr } = await aiwg(
      ['context-budget', 'fix the refresh token bug in the token manager', '--root', repo.root, '--scoring', 'keyword', '--max-tokens', '3000', '--reserve-output', '500', '--reserve-system', '100', '--json', '--output', out],
      scratch.root,
    );
    expect(stderr).not.toMatch(/internal error/);
    expect(code).toBe(0);
    const record = JSON.parse(stdout) as BudgetRecord;
    expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
    expect(record.available).toBe(2400);

    const used = TIER_NAMES.reduce((sum, t) => sum + record.allocation[t].files.reduce((s, f) => s + f.tokens, 0), 0);
    expect(used).toBeLessThanOrEqual(record.available);
    const tokenizer = await createTokenizer('o200k');
    const rendered = readFileSync(out, 'utf8');
    expect(tokenizer.count(rendered)).toBeLessThanOrEqual(record.available);
    expect(tokenizer.count(rendered)).toBe(record.metrics.rendered_tokens);

    const included = TIER_NAMES.flatMap((t) => record.allocation[t].files.map((f) => f.path));
    expect(record.allocation.primary.files.map((f) => f.path)).toContain('src/auth/token-manager.ts');
    expect(included).not.toContain('.env');
    expect(record.excluded.find((e) => e.path === '.env')?.reason).toMatch(/secret/i);
    expect(rendered).not.toContain('super-secret-value');
    for (const path of included) expect(path).not.toMatch(/\\|^\//);
  });

  it('writes the record and appends one log line per run, and nothing with --no-record', async () => {
    const recordsDir = join(repo.root, '.aiwg/rag/budget-records');
    const log = join(repo.root, '.aiwg/rag/context-budget-log.jsonl');
    const before = existsSync(recordsDir) ? readdirSync(recordsDir).length : 0;
    const linesBefore = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length : 0;
    expect((await aiwg(['context-budget', 'rotate jwt signing keys', '--root', repo.root, '--scoring', 'keyword'], repo.root)).code).toBe(0);
    expect(readdirSync(recordsDir).length).toBe(before + 1);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.length).toBe(linesBefore + 1);
    const entry = JSON.parse(lines.at(-1) ?? '{}');
    expect(Object.keys(entry)).toEqual(expect.arrayContaining(['run_id', 'original_tokens', 'budget_tokens', 'truncated_tokens', 'was_truncated', 'ts']));

    expect((await aiwg(['context-budget', 'rotate jwt signing keys', '--root', repo.root, '--scoring', 'keyword', '--no-record'], repo.root)).code).toBe(0);
    expect(readdirSync(recordsDir).length).toBe(before + 1);
  });

  it('prints the human allocation report by default', async () => {
    const { code, stdout } = await aiwg(['context-budget', 'fix the refresh token bug', '--root', repo.root, '--scoring', 'keyword', '--no-record'], repo.root);
    expect(code).toBe(0);
    expect(stdout).toMatch(/CONTEXT BUDGET ALLOCATION/);
    expect(stdout).toMatch(/PRIMARY CONTEXT \(50% = 45,000 tokens\)/);
    expect(stdout).toMatch(/Utilization: \d+\.\d%/);
  });

  it.each([
    [['context-budget', '   '], /task is required/],
    [['context-budget', 'x', '--root', '/nonexistent/dir'], /--root .*no such directory/],
    [['context-budget', 'x', '--max-tokens', 'lots'], /--max-tokens "lots" is not a whole number/],
    [['context-budget', 'x', '--max-tokens', '1000', '--reserve-output', '1000'], /reserve/],
    [['context-budget', 'x', '--tokenizer', 'gpt5'], /--tokenizer "gpt5" is not valid/],
    [['context-budget', 'x', '--bogus'], /Unknown option '--bogus'/],
  ])('exits 2 with a one-line message for %j', async (args, message) => {
    const { code, stderr, stdout } = await aiwg([...args, ...(args.includes('--root') ? [] : ['--root', repo.root])], repo.root);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout).toBe('');
  });

  it('exits 1 with the numbers when the overflow strategy is error and the files do not fit', async () => {
    const { code, stderr } = await aiwg(
      ['context-budget', 'refresh token manager jwt signing', '--root', repo.root, '--scoring', 'keyword', '--max-tokens', '700', '--reserve-output', '100', '--reserve-system', '100', '--overflow', 'error', '--no-record'],
      repo.root,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/\d[\d,]* tokens/);
    expect(stderr).toMatch(/--max-tokens|--overflow/);
  });

  it('gives a valid record for an empty repository', async () => {
    const empty = makeFixtureRepo([{ date: '2026-01-01T00:00:00Z', files: {} }]);
    try {
      const { code, stdout } = await aiwg(['context-budget', 'anything at all', '--root', empty.root, '--json', '--no-record'], empty.root);
      expect(code).toBe(0);
      const record = JSON.parse(stdout);
      expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
      expect(record.allocation.primary.files).toEqual([]);
    } finally {
      empty.cleanup();
    }
  });
});
