import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { exampleRepo } from './example-repo.js';
import { runnableBlock } from '../helpers/runnable-block.js';

const run = promisify(execFile);
const DOC = resolve('docs/library.md');

/**
 * docs/library.md's examples, run as a user would: written to a .mjs file in a consumer
 * directory whose node_modules/aiwg-context is this (built) package, then run with node
 * against a fixture repository.
 */
describe('docs/library.md runnable examples', () => {
  let repo: Fixture;
  let consumer: Fixture;
  beforeAll(() => {
    repo = exampleRepo({ 'README.md': '# svc\n\nAn http client with retries.\n' });
    consumer = makeTempDir('aiwg-consumer-');
    mkdirSync(join(consumer.root, 'node_modules'));
    symlinkSync(resolve('.'), join(consumer.root, 'node_modules', 'aiwg-context'), 'dir');
  });
  afterAll(() => {
    repo.cleanup();
    consumer.cleanup();
  });

  async function runExample(name: string, args: string[]): Promise<string> {
    const script = join(consumer.root, `${name}.mjs`);
    writeFileSync(script, runnableBlock(readFileSync(DOC, 'utf8'), name));
    const { stdout } = await run('node', [script, ...args], { cwd: repo.root, env: { ...process.env, NO_COLOR: '1' } });
    return stdout;
  }

  it('agent-loop: one provider, two tasks, files with tier/level/tokens within the budget', async () => {
    const stdout = await runExample('agent-loop', [repo.root]);
    const heads = [...stdout.matchAll(/^(\S+): (\d+)\/(\d+) tokens, (\d+) files$/gm)];
    expect(heads).toHaveLength(2);
    for (const [, runId, tokens, available, files] of heads) {
      expect(runId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(available)).toBe(4000);
      expect(Number(tokens)).toBeLessThanOrEqual(4000);
      expect(Number(files)).toBeGreaterThan(0);
    }
    expect(heads[0]?.[1]).not.toBe(heads[1]?.[1]);
    expect(stdout).toMatch(/^ {2}(primary|supporting|reference) +(full|detailed|summary|stub) +\d+ {2}src\/http\/retry\.ts$/m);
  });

  it('ports: the budget adapter behind the guard, with shared context', async () => {
    const stdout = await runExample('ports', []);
    const head = /^(\d+) \/ (\d+) tokens, (\d+) files$/m.exec(stdout);
    expect(head).not.toBeNull();
    expect(Number(head?.[2])).toBe(4000);
    expect(Number(head?.[1])).toBeLessThanOrEqual(4000);
    expect(stdout).toContain('<boot>');
  });
});
