import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAllocationReport } from '../../src/cli/render-allocation.js';
import { createColors, shouldColor } from '../../src/util/color.js';
import { displayWidth } from '../../src/util/text-width.js';
import { makeRecord, recordFile } from '../record/record-fixtures.js';
import { runCli } from '../helpers/fakes.js';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { SERVICE_FILES, SERVICE_TASK } from '../scoring/calibration-fixture.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';

const ANSI = /\x1b\[[0-9;]*m/g;

describe('the human allocation report', () => {
  it('says why nothing was selected and what to try, naming the nearest misses', () => {
    const record = makeRecord({ runId: 'vague', timestamp: '2026-01-15T10:00:00.000Z', rendered: 50 });
    record.excluded = [
      { path: 'src/a.ts', relevance_score: 0.21, reason: 'relevance 0.21 below include_minimum 0.3' },
      { path: 'src/b.ts', relevance_score: 0.27, reason: 'relevance 0.27 below include_minimum 0.3' },
      { path: 'README.md', relevance_score: 0.1, reason: 'relevance 0.1 below include_minimum 0.3' },
      { path: 'docs/c.md', relevance_score: 0.25, reason: 'relevance 0.25 below include_minimum 0.3' },
    ];
    const text = renderAllocationReport(record);
    expect(text).toContain('NOTHING SELECTED:');
    expect(text).toContain('No file scored at or above include_minimum 0.3: the task matched too little of the repository. Closest: src/b.ts 0.27, docs/c.md 0.25, src/a.ts 0.21.');
    expect(text).toContain('Try: name the files, functions, identifiers or error messages the change touches');
    expect(text).toContain('or lower relevance_scoring.thresholds.include_minimum (now 0.3) in .aiwg/rag/config.yaml');
  });

  it('with no candidate at all, or every relevant file over budget, says so', () => {
    const record = makeRecord({ runId: 'empty', timestamp: '2026-01-15T10:00:00.000Z', rendered: 50 });
    expect(renderAllocationReport(record, { includeMinimum: 0.3 })).toContain('No file was a candidate: 1 file excluded before scoring (--show-allocation lists the reasons).');
    record.excluded = [];
    expect(renderAllocationReport(record)).toContain('No file was a candidate: the root holds no readable files.');
    const tight = makeRecord({ runId: 'tight', timestamp: '2026-01-15T10:00:00.000Z', rendered: 50, available: 40, dropped: ['src/a.ts', 'src/b.ts'], overflow: 'prioritize' });
    expect(renderAllocationReport(tight)).toContain('2 relevant files did not fit even as a stub in 40 available tokens.');
  });

  it('never says "no overflow handling needed" next to files at reduced detail', () => {
    const record = makeRecord({
      runId: 'reduced',
      timestamp: '2026-01-15T10:00:00.000Z',
      rendered: 900,
      files: { primary: [recordFile('src/a.ts', 'full', 400)], supporting: [recordFile('src/b.ts', 'detailed', 300), recordFile('src/c.ts', 'summary', 100)], reference: [recordFile('docs/d.md', 'stub', 20)] },
    });
    const text = renderAllocationReport(record);
    expect(text).not.toContain('no overflow handling needed');
    expect(text).toContain('Status: within budget with 3 files at reduced detail (detailed 1, summary 1, stub 1), nothing dropped for lack of budget');
    const full = makeRecord({ runId: 'full', timestamp: '2026-01-15T10:00:00.000Z', rendered: 400, files: { primary: [recordFile('src/a.ts', 'full', 400)] } });
    expect(renderAllocationReport(full)).toContain('Status: within budget, no overflow handling needed');
  });

  it('keeps table borders straight with CJK and other wide paths', () => {
    const record = makeRecord({
      runId: 'wide',
      timestamp: '2026-01-15T10:00:00.000Z',
      rendered: 900,
      files: { primary: [recordFile('docs/設計/概要.md', 'full', 400), recordFile('src/a.ts', 'full', 300), recordFile('notes/🚀launch.md', 'full', 10)] },
    });
    const lines = renderAllocationReport(record).split('\n');
    const top = lines.findIndex((line) => line.startsWith('┌'));
    const table = lines.slice(top, lines.findIndex((line, i) => i > top && line.startsWith('└')) + 1);
    expect(table.length).toBeGreaterThan(5);
    const widths = new Set(table.map((line) => displayWidth(line)));
    expect(widths.size).toBe(1);
    const column = (line: string) => {
      const bar = line.indexOf('│', 1);
      return displayWidth(line.slice(0, bar));
    };
    expect(new Set(table.filter((l) => l.startsWith('│')).map(column)).size).toBe(1);
  });

  it('colours tiers and levels when asked, and the text is the same without the codes', () => {
    const record = makeRecord({
      runId: 'color',
      timestamp: '2026-01-15T10:00:00.000Z',
      rendered: 900,
      files: { primary: [recordFile('src/a.ts', 'full', 400)], supporting: [recordFile('src/b.ts', 'summary', 100)] },
    });
    const plain = renderAllocationReport(record);
    const colored = renderAllocationReport(record, { colors: createColors(true) });
    expect(plain).not.toMatch(ANSI);
    expect(colored).toContain('\x1b[1m\x1b[32mPRIMARY CONTEXT\x1b[0m');
    expect(colored).toContain('\x1b[33msummary\x1b[0m');
    expect(colored.replace(ANSI, '')).toBe(plain);
  });

  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true, false],
    [{ TERM: 'dumb' }, true, false],
  ])('colour with env %j and stdout TTY %s: %s', (env, tty, expected) => {
    expect(shouldColor(env, tty)).toBe(expected);
  });
});

/** The human report renders from the record alone: the plan that ran, never the config's percentages. */
let repo: Fixture;
beforeAll(() => {
  repo = makeFixtureRepo([{ files: SERVICE_FILES, date: '2010-01-01T00:00:00Z' }]);
});
afterAll(() => repo.cleanup());

const FLAGS = ['--scoring', 'keyword', '--tokenizer', 'chars4', '--max-tokens', '3000', '--reserve-output', '300', '--reserve-system', '100', '--no-record'];

async function run(config: string | null, extra: string[] = []) {
  if (config !== null) repo.write('.aiwg/rag/config.yaml', config);
  const report = await runCli(['context-budget', SERVICE_TASK, ...FLAGS, ...extra, '--root', repo.root], repo.root);
  const json = await runCli(['context-budget', SERVICE_TASK, ...FLAGS, ...extra, '--json', '--root', repo.root], repo.root);
  expect(report.code, report.stderr).toBe(0);
  return { report: report.stdout, record: JSON.parse(json.stdout) as BudgetRecord };
}

describe('context-budget human report', () => {
  it('with budget_config.enabled false prints the real pool, not the configured percentages', async () => {
    const { report, record } = await run('budget_config:\n  enabled: false\n');
    expect(record.budget_plan).toMatchObject({ one_pool: true, tiers: { primary: { percent: 100, tokens: 2600 }, supporting: { percent: 0, tokens: 0 } } });
    expect(report).toContain('  - Available: 2,600 tokens\n  - One pool (budget_config.enabled: false): the tiers fill it in flow order\n');
    expect(report).toMatch(/^PRIMARY CONTEXT \([\d,]+ tokens of the 2,600-token pool\):$/m);
    expect(report).toMatch(/^SUPPORTING CONTEXT \([\d,]+ tokens of the 2,600-token pool\):$/m);
    for (const configured of ['50% =', '30% =', '15% =', '5% =']) expect(report).not.toContain(configured);
    // what the report says each tier got is what the record says
    expect(report).toContain(`PRIMARY CONTEXT (${record.allocation.primary.budget.toLocaleString('en-US')} tokens of the 2,600-token pool)`);
  });

  it('with tier shares prints the planned share of the run, whatever the config says now', async () => {
    const { record } = await run('budget_config:\n  enabled: true\n');
    expect(record.budget_plan?.tiers.primary).toEqual({ percent: 50, tokens: 1300 });
    const edited = structuredClone(record);
    edited.budget_plan!.tiers.primary = { percent: 70, tokens: 1820 };
    expect(renderAllocationReport(edited)).toMatch(/^PRIMARY CONTEXT \(70% = 1,820 tokens/m);
  });

  it('shows a tier budget the boot header reserve cut below its share', async () => {
    const { report, record } = await run(null, ['--max-tokens', '700']);
    const primary = record.allocation.primary.budget;
    expect(primary).toBeLessThan(record.budget_plan!.tiers.primary.tokens);
    expect(report).toContain(`PRIMARY CONTEXT (50% = 150 tokens, ${primary} after the boot header):`);
  });
});
