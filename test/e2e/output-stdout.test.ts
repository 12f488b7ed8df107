import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin as aiwg } from '../helpers/run-bin.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { resolveRecordsDir } from '../../src/cache/cache-dir.js';


function retryRepo(): Fixture {
  return makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/http/retry.ts': 'export function retry(attempts: number): number {\n  // exponential backoff between attempts\n  return attempts * 2;\n}\n',
        'src/http/client.ts': "import { retry } from './retry.js';\nexport const client = { get: () => retry(3) };\n",
        'README.md': '# svc\n\nAn http client with retry.\n',
      },
    },
  ]);
}

describe('aiwg context-budget --output - (built CLI)', () => {
  let repo: Fixture;
  let scratch: Fixture;
  beforeAll(() => {
    repo = retryRepo();
    scratch = makeTempDir();
  });
  afterAll(() => {
    repo.cleanup();
    scratch.cleanup();
  });

  it('writes the context, and only the context, to stdout; the report goes to stderr; no file named "-"', async () => {
    const { code, stdout, stderr } = await aiwg(
      ['context-budget', 'fix the retry backoff', '--root', repo.root, '--scoring', 'keyword', '--max-tokens', '3000', '--reserve-output', '500', '--reserve-system', '100', '--output', '-'],
      scratch.root,
    );
    expect(stderr).not.toMatch(/internal error/);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^<context|^<\?xml|^<aiwg|^</);
    expect(stdout).toContain('src/http/retry.ts');
    expect(stdout).not.toContain('CONTEXT BUDGET ALLOCATION');
    expect(stderr).toContain('CONTEXT BUDGET ALLOCATION');
    expect(existsSync(join(scratch.root, '-'))).toBe(false);
    const tokenizer = await createTokenizer('o200k');
    expect(tokenizer.count(stdout)).toBeLessThanOrEqual(2400);
    // The record is still written, exactly as without --output -.
    const records = readdirSync(resolveRecordsDir(repo.root));
    expect(records).toHaveLength(1);
  });

  it('honours --format markdown on stdout', async () => {
    const { code, stdout } = await aiwg(
      ['context-budget', 'fix the retry backoff', '--root', repo.root, '--scoring', 'keyword', '--format', 'markdown', '--no-record', '-o', '-'],
      scratch.root,
    );
    expect(code).toBe(0);
    expect(stdout).toContain('src/http/retry.ts');
    expect(stdout).not.toContain('<context');
  });

  it('refuses --output - with --json in one line, exit 2, before reading anything', async () => {
    const { code, stdout, stderr } = await aiwg(['context-budget', 'fix the retry backoff', '--root', repo.root, '--json', '--output', '-'], scratch.root);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/--output - and --json both want stdout/);
  });
});
