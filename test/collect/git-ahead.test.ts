import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startGitAhead, withGitAhead } from '../../src/collect/git-ahead.js';
import { FIRST_GIT_COMMANDS, locateRepository } from '../../src/collect/git-facts.js';
import { execGit, GitCommandError, type GitPort } from '../../src/collect/git-port.js';
import { findCommand } from '../../src/cli/commands/index.js';
import { startsGitAhead } from '../../src/cli/main.js';
import { runCli } from '../helpers/fakes.js';
import { makeFixtureRepo, makeTempDir } from '../helpers/fixture-repo.js';

/**
 * git started ahead (before the engine loads): each first command's output is taken once, for
 * the same command in the same directory, and is what git would have said; a failure reads as a
 * live one's; the CLI hands them to the collect, which then runs none of them again, and the run
 * is the same as one without them.
 */
describe('git ahead', () => {
  const repo = makeFixtureRepo(
    [
      { date: '2026-01-01T00:00:00Z', files: { 'src/a.ts': 'export const alpha = 1;\n', 'README.md': '# fixture\n' } },
      { date: '2026-01-02T00:00:00Z', files: { 'src/b.ts': "import { alpha } from './a';\nexport const beta = alpha + 1;\n" } },
    ],
    { untracked: { 'notes.txt': 'untracked notes\n' } },
  );
  const plain = makeTempDir('aiwg-not-a-repo-');
  const other = makeTempDir('aiwg-elsewhere-');
  afterAll(() => {
    repo.cleanup();
    plain.cleanup();
    other.cleanup();
  });
  const root = realpathSync(repo.root);
  const env = { PATH: process.env.PATH };

  it('answers each first command once, in its directory, with what git says', async () => {
    writeFileSync(join(repo.root, 'src/a.ts'), 'export const alpha = 2;\n');
    const live = execGit(env);
    let ran = 0;
    const counting: GitPort = { run: (args, cwd) => (ran++, live.run(args, cwd)), stream: live.stream };
    const git = withGitAhead(counting, startGitAhead(repo.root, env));
    for (const args of FIRST_GIT_COMMANDS) expect((await git.run([...args], root)).equals(await live.run([...args], root))).toBe(true);
    expect(ran).toBe(0);
    // taken once: asked again, git runs; another directory or command: git runs
    await git.run([...FIRST_GIT_COMMANDS[1]!], root);
    expect(ran).toBe(1);
    await git.run(['rev-parse', '--show-toplevel'], root);
    expect(ran).toBe(2);
    const elsewhere = withGitAhead(counting, startGitAhead(repo.root, env));
    await elsewhere.run([...FIRST_GIT_COMMANDS[2]!], realpathSync(other.root)).catch(() => undefined);
    expect(ran).toBe(3);
  });

  it('a command that failed ahead fails as it would live: not a repository is still told apart', async () => {
    const git = withGitAhead(execGit(env), startGitAhead(plain.root, env));
    const failure = await git.run([...FIRST_GIT_COMMANDS[0]!], realpathSync(plain.root)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).notARepository).toBe(true);
    const located = await locateRepository(withGitAhead(execGit(env), startGitAhead(plain.root, env)), realpathSync(plain.root));
    expect(located).toEqual(await locateRepository(execGit(env), realpathSync(plain.root)));
  });

  it('a directory that does not exist starts nothing', async () => {
    const ahead = startGitAhead(join(plain.root, 'missing'), env);
    expect(ahead.take(FIRST_GIT_COMMANDS[0]!, join(plain.root, 'missing'))).toBeUndefined();
  });

  it('the CLI starts them for context-budget run in the repository, not for help, another --root or another command', () => {
    const budget = findCommand('context-budget')!;
    expect(startsGitAhead(budget, ['fix the parser', '--json'])).toBe(true);
    expect(startsGitAhead(budget, ['fix the parser', '--root', '../other'])).toBe(false);
    expect(startsGitAhead(budget, ['fix the parser', '--root=../other'])).toBe(false);
    expect(startsGitAhead(budget, ['--help'])).toBe(false);
    // a task that mentions the flag is not the flag
    expect(startsGitAhead(budget, ['why does --root fail'])).toBe(true);
    expect(startsGitAhead(findCommand('cache')!, ['stats'])).toBe(false);
  });

  it('the CLI starts them in its directory and the collect takes them: git lists the repository once, and the run is the one --root gives', async () => {
    const trace = join(other.root, 'git-trace.txt');
    const task = ['context-budget', 'change alpha in src/a.ts', '--json', '--no-record', '--run-id', 'ahead-1', '--scoring', 'keyword'];
    const ahead = await runCli(task, repo.root, { ...env, GIT_TRACE: trace, AIWG_CACHE_DIR: join(other.root, 'cache-a') });
    expect(ahead.code).toBe(0);
    const commands = readFileSync(trace, 'utf8').split('\n').filter((line) => line.includes('trace: built-in: git'));
    expect(commands.filter((line) => / git status /.test(line))).toHaveLength(1);
    expect(commands.filter((line) => / git ls-files /.test(line))).toHaveLength(1);
    // from elsewhere with --root: nothing is started ahead; the same answer
    const rooted = await runCli([...task, '--root', repo.root], other.root, { ...env, AIWG_CACHE_DIR: join(other.root, 'cache-b') });
    expect(rooted.code).toBe(0);
    const strip = (stdout: string) => {
      const { run_id: _id, timestamp: _at, timings_ms: _t, config_hash: _h, ...rest } = JSON.parse(stdout) as Record<string, unknown>;
      return rest;
    };
    expect(strip(ahead.stdout)).toEqual(strip(rooted.stdout));
  });
});
