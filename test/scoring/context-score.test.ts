import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runMain } from '../../src/cli/main.js';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { fakeIo } from '../helpers/fakes.js';
import { SERVICE_FILES, SERVICE_TASK } from './calibration-fixture.js';

// the command reads the real clock, so commit dates are relative to it
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

let repo: Fixture;
beforeAll(() => {
  repo = makeFixtureRepo(
    [
      { files: SERVICE_FILES, date: daysAgo(90) },
      { files: { 'src/db/pool.ts': `${SERVICE_FILES['src/db/pool.ts']}// tuned\n` }, date: daysAgo(1) },
    ],
    { untracked: { '.env': 'SECRET=1\n' } },
  );
  symlinkSync('/etc/hostname', join(repo.root, 'link-out.ts'));
});
afterAll(() => repo.cleanup());

async function score(args: string[]) {
  const io = fakeIo(repo.root);
  const code = await runMain(['context-score', ...args, '--scoring', 'keyword'], io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}

describe('aiwg context-score', () => {
  it('prints every factor with raw value, score, weight and contribution, the total and the tier', async () => {
    const { code, stdout } = await score(['src/http/client.ts', '--task', SERVICE_TASK]);
    expect(code).toBe(0);
    for (const factor of ['task_alignment', 'recency', 'mention_density', 'dependency_depth', 'file_type']) expect(stdout).toContain(factor);
    expect(stdout).toMatch(/factor\s+raw\s+score\s+weight\s+contribution\s+detail/);
    expect(stdout).toMatch(/Total relevance: 0\.\d{3}\s+\(rank 1 of \d+\)/);
    expect(stdout).toMatch(/Tier:\s+primary/);
  });

  it('--json gives the same explanation as one JSON object whose contributions add up', async () => {
    const { code, stdout } = await score(['src/db/pool.ts', '--task', SERVICE_TASK, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as {
      path: string;
      relevance: number;
      tier: string;
      method: string;
      factors: Array<{ name: string; raw: number; score: number; weight: number; contribution: number }>;
    };
    expect(json.path).toBe('src/db/pool.ts');
    expect(json.method).toBe('keyword');
    expect(json.factors.map((f) => f.name)).toEqual(['task_alignment', 'recency', 'mention_density', 'dependency_depth', 'file_type']);
    const sum = json.factors.reduce((acc, f) => acc + f.contribution, 0);
    expect(sum).toBeCloseTo(json.relevance, 5);
    for (const f of json.factors) expect(f.contribution).toBeCloseTo(f.weight * f.score, 6);
    // committed a day ago: recency is well above its floor
    expect(json.factors.find((f) => f.name === 'recency')?.score).toBeGreaterThan(0.3);
    expect(['reference', 'excluded']).toContain(json.tier);
  });

  it('accepts an absolute path inside the root', async () => {
    const { code, stdout } = await score([join(repo.root, 'src/http/retry.ts'), '--task', SERVICE_TASK]);
    expect(code).toBe(0);
    expect(stdout).toContain('File:   src/http/retry.ts');
  });

  it.each([
    [['../outside.ts', '--task', 'x'], /outside the root/],
    [['/etc/hostname', '--task', 'x'], /outside the root/],
    [['link-out.ts', '--task', 'x'], /link-out\.ts: not a candidate file|no such file/],
    [['.env', '--task', 'x'], /\.env: not a candidate file \(/],
    [['src/nope.ts', '--task', 'x'], /src\/nope\.ts: no such file/],
    [['src/http/client.ts'], /--task is required/],
    [['--task', 'x'], /exactly one file/],
  ])('%j fails with exit code 2 and a clear message', async (args, message) => {
    const { code, stderr, stdout } = await score(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });
});
