import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command.js';
import { parseSince } from '../../src/cli/commands/context-report.js';
import { writeRecord } from '../../src/record/write-record.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { makeRecord, recordFile } from './record-fixtures.js';

function fakeIo(cwd: string) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), env: {}, cwd, isTTY: false };
  return { io, out };
}

async function report(args: string[], cwd: string) {
  const { io, out } = fakeIo(cwd);
  const code = await runMain(['context-report', ...args], io);
  return { code, ...out };
}

describe('aiwg context-report', () => {
  let repo: Fixture;
  beforeAll(async () => {
    repo = makeTempDir('aiwg-report-');
    const runs = [
      { runId: '1a2b3c4d-0001', timestamp: '2026-01-10T09:00:00.000Z', rendered: 9_800, overflow: 'summarize' as const, dropped: ['docs/guide.md'] },
      { runId: '5e6f7a8b-0002', timestamp: '2026-01-11T09:00:00.000Z', rendered: 9_900, overflow: 'summarize' as const, dropped: ['docs/guide.md'] },
      { runId: '9c0d1e2f-0003', timestamp: '2026-01-12T09:00:00.000Z', rendered: 9_700, overflow: 'prioritize' as const },
    ];
    for (const run of runs) {
      await writeRecord(makeRecord({ ...run, requested: 16_000, files: { supporting: [recordFile('src/util.ts', 'summary', 400)] } }), { root: repo.root });
    }
    writeFileSync(join(repo.root, '.aiwg/rag/budget-records/2026-01-09T00-00-00.000Z-corrupt.json'), '{ not json');
  });
  afterAll(() => repo.cleanup());

  it('prints the runs, summary, files and advice, and warns about skipped files on stderr', async () => {
    const { code, stdout, stderr } = await report(['--root', repo.root], '/');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^CONTEXT REPORT: 3 runs from 2026-01-10T09:00:00.000Z to 2026-01-12T09:00:00.000Z\n/);
    expect(stdout).toMatch(/1a2b3c4d {2}2026-01-10 09:00 .* 9,800 +10,000 +98% .* summarize \(1\)/);
    expect(stdout).toMatch(/docs\/guide\.md +0 +2/);
    expect(stdout).toMatch(/src\/util\.ts +3 +0/);
    expect(stdout).toContain('budgets look too tight: 3 of 3 runs overflowed');
    expect(stderr).toMatch(/^warning: skipped \.aiwg\/rag\/budget-records\/2026-01-09T00-00-00\.000Z-corrupt\.json: not valid JSON/);
  });

  it('prints one JSON object with --json, resolving --root against the cwd', async () => {
    const { code, stdout } = await report(['--json', '--last', '2', '--root', '.'], repo.root);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(parsed.runs.map((r: { run_id: string }) => r.run_id)).toEqual(['5e6f7a8b-0002', '9c0d1e2f-0003']);
    expect(parsed.summary).toMatchObject({ runs: 2, overflowed: 2, strategies: { summarize: 1, prioritize: 1 } });
    expect(parsed.advice).toEqual([{ kind: 'insufficient_data', message: '2 runs recorded: advice needs at least 3' }]);
    expect(parsed.skipped).toEqual([{ path: '.aiwg/rag/budget-records/2026-01-09T00-00-00.000Z-corrupt.json', reason: expect.stringMatching(/^not valid JSON/) }]);
  });

  it.each([
    [['--session', '5e6f'], ['5e6f7a8b-0002']],
    [['--since', '2026-01-11'], ['5e6f7a8b-0002', '9c0d1e2f-0003']],
    [['--since', '2026-01-11T12:00:00Z'], ['9c0d1e2f-0003']],
  ])('filters with %j', async (args, ids) => {
    const { code, stdout } = await report([...args, '--json', '--root', repo.root], '/');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).runs.map((r: { run_id: string }) => r.run_id)).toEqual(ids);
  });

  it.each([
    [['--last', '0'], /--last 0: expected a whole number of runs >= 1/],
    [['--last', 'ten'], /--last ten: expected a whole number/],
    [['--since', 'yesterday'], /--since yesterday: not a date; use ISO 8601/],
    [['--since', '2026-13-45'], /--since 2026-13-45: not a date/],
    [['--session', 'nope'], /--session nope: no recorded run has this id/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('is a usage error (exit 2) for %j', async (args, message) => {
    const { code, stdout, stderr } = await report([...args, '--root', repo.root], '/');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it('says how to get records in a root without any', async () => {
    const empty = makeTempDir('aiwg-noreport-');
    try {
      const { code, stdout } = await report(['--root', empty.root], '/');
      expect(code).toBe(0);
      expect(stdout).toMatch(/^No budget records in .*budget-records: run "aiwg context-budget <task>" first\.\n$/);
    } finally {
      empty.cleanup();
    }
  });

  it('reads relative --since spans back from now', () => {
    const now = Date.UTC(2026, 0, 15, 12);
    expect(parseSince('12h', now).toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(parseSince('2w', now).toISOString()).toBe('2026-01-01T12:00:00.000Z');
  });
});
