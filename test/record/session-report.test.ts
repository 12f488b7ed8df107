import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { goldenRepo, type GoldenRepo } from '../e2e/golden-runs.js';
import { SERVICE_TASK } from '../scoring/calibration-fixture.js';
import { readSession } from '../../src/record/session.js';
import { formatCount } from '../../src/util/format.js';
import { BudgetRecordSchema } from '../../src/record/record-schema.js';

/**
 * One session = the runs sharing a run id: context-budget (its record), handoff-context (its
 * budget-log phase line) and assemble (its `assembled` event), each with `--run-id`. The
 * commands run for real (CLI, fixture git repository); context-report --session reads them back.
 */
const SESSION = 'review-42';
const BUDGET = ['--scoring', 'keyword', '--tokenizer', 'chars4', '--max-tokens', '2600', '--reserve-output', '300', '--reserve-system', '100'];

let repo: GoldenRepo;
let output: string;
let record: ReturnType<typeof BudgetRecordSchema.parse>;

beforeAll(async () => {
  repo = goldenRepo();
  const run = (argv: string[]) => runCli([...argv, '--root', repo.root], repo.root, { NO_COLOR: '1' });
  const budget = await run(['context-budget', SERVICE_TASK, ...BUDGET, '--run-id', SESSION, '--output', 'out.txt']);
  expect(budget.code).toBe(0);
  output = readFileSync(join(repo.root, 'out.txt'), 'utf8');
  const other = await run(['context-budget', 'the oauth token refresh', ...BUDGET, '--run-id', 'other-1']);
  expect(other.code).toBe(0);
  const handoff = await run(['handoff-context', '--phase', '3', '--dir', 'handoffs', '--tokenizer', 'chars4', '--run-id', SESSION]);
  expect(handoff.code, handoff.stderr).toBe(0);
  const assemble = await run(['assemble', '--tokenizer', 'chars4', '--run-id', SESSION]);
  expect(assemble.code, assemble.stderr).toBe(0);
  const json = await run(['context-budget', SERVICE_TASK, ...BUDGET, '--run-id', 'json-run', '--json', '--no-record']);
  record = BudgetRecordSchema.parse(JSON.parse(json.stdout));
}, 120_000);
afterAll(() => repo.cleanup());

describe('the boot header carries spec 001 rows', () => {
  it('names the constitution (engine version, config checksum), the session, the output sink and the caches', () => {
    const boot = output.slice(0, output.indexOf('</boot>'));
    const lines = boot.split('\n').slice(1);
    expect(lines[0]).toMatch(/^Root: /);
    expect(lines[1]).toMatch(/^Constitution: aiwg-context \(v\d+\.\d+\.\d+, checksum: [0-9a-f]{12}\)$/);
    expect(lines.slice(2, 5)).toEqual([`Session: ${SESSION}`, 'Output sink: out.txt', 'Cache hints: <git common dir>/aiwg-context/summaries/ (summaries by content hash)']);
  });

  it('keeps the run id, and a checksum of the rules that ignores where the caches live', async () => {
    expect(record.run_id).toBe('json-run');
    const checksum = (env: Record<string, string>, extra: string[] = []) =>
      runCli(['context-budget', SERVICE_TASK, ...BUDGET, ...extra, '--no-record', '--output', '-', '--root', repo.root], repo.root, env).then(
        (r) => /Constitution: aiwg-context \(v[\d.]+, checksum: ([0-9a-f]{12})\)/.exec(r.stdout)![1],
      );
    const here = /checksum: ([0-9a-f]{12})/.exec(output)![1];
    const cacheDir = join(repo.root, '..', 'elsewhere-cache');
    expect(await checksum({ AIWG_CACHE_DIR: cacheDir })).toBe(here);
    expect(await checksum({}, ['--overflow', 'truncate'])).not.toBe(here);
    const moved = await runCli(['context-budget', SERVICE_TASK, ...BUDGET, '--no-record', '--output', '-', '--root', repo.root], repo.root, { AIWG_CACHE_DIR: cacheDir });
    expect(moved.stdout).toContain('\nCache hints: <cache.dir>/summaries/ (summaries by content hash)\n');
    expect(moved.stdout).not.toContain(cacheDir);
  });

  it('says stdout when the context goes to stdout, and nothing when it is not written', async () => {
    const toStdout = await runCli(['context-budget', SERVICE_TASK, ...BUDGET, '--no-record', '--output', '-', '--root', repo.root], repo.root, { NO_COLOR: '1' });
    expect(toStdout.stdout).toContain('\nOutput sink: stdout\n');
    const json = await runCli(['context-budget', SERVICE_TASK, ...BUDGET, '--no-record', '--format', 'json', '--output', '-', '--root', repo.root], repo.root);
    const boot = JSON.parse(json.stdout).boot;
    expect(boot).toMatchObject({ output_sink: 'stdout', cache_hints: ['<git common dir>/aiwg-context/summaries/ (summaries by content hash)'] });
    expect(boot.constitution).toMatchObject({ path: 'aiwg-context', checksum: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(typeof boot.session).toBe('string');
  });

  it('refuses a run id that could not name a file, with exit 2', async () => {
    const bad = await runCli(['handoff-context', '--phase', '2', '--run-id', '../x', '--root', repo.root], repo.root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--run-id "\.\.\/x": expected 1-100 letters/);
  });
});

describe('aiwg context-report --session', () => {
  it('shows every run of the session, oldest first, with the files each gave the agent', async () => {
    const { code, stdout } = await runCli(['context-report', '--session', SESSION, '--root', repo.root], repo.root, { NO_COLOR: '1' });
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^SESSION ${SESSION}: 3 runs \\(context-budget 1, handoff-context 1, assemble 1\\)`));
    expect(stdout).not.toContain('oauth token refresh');
    const view = await readSession(repo.root, SESSION);
    expect(view.runs.map((r) => r.kind)).toEqual(['context-budget', 'handoff-context', 'assemble']);
    const budget = view.runs[0]!;
    if (budget.kind !== 'context-budget') throw new Error('first run is the context-budget run');
    // Every file the record lists, in the report, with its tier and level.
    expect(budget.files.length).toBeGreaterThan(0);
    for (const f of budget.files) expect(stdout).toMatch(new RegExp(`\\n  ${f.path.replace(/\./g, '\\.')} +${f.tier} +${f.level}`));
    const handoff = view.runs[1]!;
    if (handoff.kind !== 'handoff-context') throw new Error('second run is the handoff');
    expect(handoff.phase).toBe(3);
    expect(stdout).toContain(`handoff-context phase 3: ${formatCount(handoff.truncated_tokens)} of ${formatCount(handoff.budget_tokens)} tokens`);
    const assemble = view.runs[2]!;
    if (assemble.kind !== 'assemble') throw new Error('third run is the assemble');
    expect(assemble.manifest).toBe('working-set.yml');
    expect(assemble.files.map((f) => f.path)).toContain('docs/architecture.md');
    for (const f of assemble.files) expect(stdout).toContain(`  ${f.path}`);
  });

  it('gives the runs as JSON beside the report of the session records', async () => {
    const { code, stdout } = await runCli(['context-report', '--session', SESSION, '--json', '--root', repo.root], repo.root);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(parsed.session.id).toBe(SESSION);
    expect(parsed.session.runs.map((r: { kind: string }) => r.kind)).toEqual(['context-budget', 'handoff-context', 'assemble']);
    expect(parsed.runs.map((r: { run_id: string }) => r.run_id)).toEqual([SESSION]);
  });

  it('finds a session made only of handoff-context runs', async () => {
    const run = await runCli(['handoff-context', '--phase', '2', '--dir', 'handoffs', '--tokenizer', 'chars4', '--run-id', 'phases-only', '--root', repo.root], repo.root);
    expect(run.code).toBe(0);
    const again = await runCli(['handoff-context', '--phase', '3', '--dir', 'handoffs', '--tokenizer', 'chars4', '--run-id', 'phases-only', '--root', repo.root], repo.root);
    expect(again.code).toBe(0);
    const { code, stdout } = await runCli(['context-report', '--session', 'phases-only', '--root', repo.root], repo.root);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^SESSION phases-only: 2 runs \(handoff-context 2\)/);
    expect(stdout).toMatch(/handoff-context phase 2: .*\n\n.*handoff-context phase 3: /);
  });
});
