import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../../src/cli/main.js';
import { parseBudgets, parseCommits, parseMethods } from '../../src/cli/commands/context-eval.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { fakeIo } from '../helpers/fakes.js';

describe('aiwg context-eval flags', () => {
  let dir: Fixture;
  beforeAll(() => {
    dir = makeTempDir();
  });
  afterAll(() => dir.cleanup());

  it.each([
    [['--commits', 'ten'], '--commits "ten"'],
    [['--commits', '0'], '--commits "0"'],
    [['--budgets', '8000,lots'], '--budgets "8000,lots"'],
    [['--budgets', '8000,-5'], '--budgets "8000,-5"'],
    [['--budgets', ''], '--budgets ""'],
    [['--methods', 'keyword,magic'], 'unknown method "magic"'],
    [['--methods', ','], 'no method given'],
    [['--bogus'], "'--bogus'"],
    [['--root', '/no/such/dir/aiwg'], '--root /no/such/dir/aiwg'],
    [['stray'], 'stray'],
  ])('%j is a usage error naming the flag', async (args, named) => {
    const io = fakeIo(dir.root);
    expect(await runMain(['context-eval', ...args], io)).toBe(2);
    expect(io.err.join('')).toContain(named);
    expect(io.out).toEqual([]);
  });

  it('fails with exit 2 outside a git repository', async () => {
    const io = fakeIo(dir.root);
    expect(await runMain(['context-eval', '--commits', '1'], io)).toBe(2);
    expect(io.err.join('')).toMatch(/cannot read the git history/);
  });

  it('prints help', async () => {
    const io = fakeIo(dir.root);
    expect(await runMain(['context-eval', '--help'], io)).toBe(0);
    expect(io.out.join('')).toContain('--budgets LIST');
  });

  it.each([
    [undefined, [8000, 32000]],
    ['13000, 27_000,50000', [13000, 27000, 50000]],
  ])('parses budgets %j', (value, expected) => {
    expect(parseBudgets(value)).toEqual(expected);
  });

  it('parses commits and methods with defaults', () => {
    expect(parseCommits(undefined)).toBe(20);
    expect(parseCommits('7')).toBe(7);
    expect(parseMethods(undefined)).toEqual(['keyword', 'semantic', 'hybrid']);
    expect(parseMethods('hybrid,keyword,hybrid')).toEqual(['hybrid', 'keyword']);
  });
});
