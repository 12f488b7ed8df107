import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { exampleRepo } from './example-repo.js';
import { runnableBlock } from '../helpers/runnable-block.js';
import { BIN } from '../helpers/run-bin.js';

const run = promisify(execFile);

/**
 * The README's Python example (standard library only), run with python3 against a fixture
 * repository: the CLI route (`--output -`) and the MCP route (JSON-RPC over the server's stdio).
 * .ci/run installs python3 when the machine lacks it.
 */
describe('README: the Python agent example', () => {
  let repo: Fixture;
  let scratch: Fixture;
  beforeAll(() => {
    repo = exampleRepo();
    scratch = makeTempDir();
  });
  afterAll(() => {
    repo.cleanup();
    scratch.cleanup();
  });

  it('prints the CLI context size, the tools and the MCP allocation summary', async () => {
    const script = join(scratch.root, 'agent.py');
    writeFileSync(script, runnableBlock(readFileSync(resolve('README.md'), 'utf8'), 'python-agent'));
    // Keyword scoring keeps the test off the one-time embedding model build; the code path is the same.
    const env = { ...process.env, AIWG: `"${process.execPath}" "${BIN}"`, AIWG_SCORING_METHOD: 'keyword', NO_COLOR: '1' };
    const { stdout } = await run('python3', [script, repo.root, 'fix the retry backoff in the http client'], { cwd: scratch.root, env });
    expect(stdout).toMatch(/^cli: [1-9]\d* characters of context$/m);
    expect(stdout).toMatch(/^tools: assemble, context_budget, context_score, /m);
    const head = /^mcp: run \S+: (\d+)\/(\d+) tokens$/m.exec(stdout);
    expect(head).not.toBeNull();
    expect(Number(head?.[2])).toBe(4000);
    expect(Number(head?.[1])).toBeLessThanOrEqual(4000);
    expect(stdout).toMatch(/^ {2}(primary|supporting|reference) +(full|detailed|summary|stub) +\d+ {2}src\/http\/retry\.ts$/m);
  });
});
