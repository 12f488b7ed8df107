import { describe, expect, it } from 'vitest';
import { buildReport, type AdviceKind } from '../../src/record/report.js';
import { renderReport } from '../../src/record/render-report.js';
import { makeRecord, recordFile, type RunSpec } from './record-fixtures.js';

const day = (d: number) => `2026-01-${String(d).padStart(2, '0')}T09:00:00.000Z`;

/** Runs at the given utilizations (available 10,000), each optionally overflowing. */
function runs(utilizations: number[], extra: Partial<RunSpec> = {}) {
  return utilizations.map((u, i) => makeRecord({ runId: `run-${i + 1}`, timestamp: day(i + 1), rendered: Math.round(u * 10_000), ...extra }));
}

describe('buildReport', () => {
  const records = [
    makeRecord({
      runId: 'r2',
      timestamp: day(2),
      rendered: 9_900,
      requested: 14_000,
      overflow: 'summarize',
      dropped: ['docs/big.md'],
      files: {
        primary: [recordFile('src/a.ts', 'full', 5000), recordFile('src/b.ts', 'detailed', 1000)],
        supporting: [recordFile('src/c.ts', 'summary', 500), recordFile('test/a.test.ts', 'detailed', 1500)],
        reference: [recordFile('docs/x.md', 'stub', 50), recordFile('docs/y.md', 'summary', 400)],
      },
    }),
    makeRecord({
      runId: 'r1',
      timestamp: day(1),
      rendered: 5_000,
      files: { primary: [recordFile('src/a.ts', 'full', 4000, { truncated: true })], supporting: [recordFile('src/c.ts', 'stub', 40)] },
      overflow: 'truncate',
    }),
  ];
  const report = buildReport(records);

  it('lists runs oldest first with their tier allocation', () => {
    expect(report.runs.map((r) => r.run_id)).toEqual(['r1', 'r2']);
    expect(report.runs[1]?.tiers).toEqual({
      primary: { budget: 5000, tokens: 6000, files: 2 },
      supporting: { budget: 3000, tokens: 2000, files: 2 },
      reference: { budget: 1500, tokens: 450, files: 2 },
      history: { budget: 500, tokens: 0, files: 0 },
    });
    expect(report.runs[1]).toMatchObject({ utilization: 0.99, degraded_files: 3, dropped_files: 1, truncated_files: 0 });
    expect(report.runs[0]).toMatchObject({ utilization: 0.5, degraded_files: 1, dropped_files: 0, truncated_files: 1 });
  });

  it('summarises overflow, truncation and utilization', () => {
    expect(report.summary).toEqual({
      runs: 2,
      first: day(1),
      last: day(2),
      overflowed: 2,
      truncated: 1,
      strategies: { summarize: 1, truncate: 1 },
      utilization: { mean: 0.745, min: 0.5, max: 0.99 },
    });
  });

  it('counts the files most often degraded (below the tier start level) or dropped for budget', () => {
    expect(report.files).toEqual([
      { path: 'src/c.ts', degraded: 2, dropped: 0 },
      { path: 'docs/big.md', degraded: 0, dropped: 1 },
      { path: 'docs/x.md', degraded: 0 + 1, dropped: 0 },
      { path: 'src/b.ts', degraded: 1, dropped: 0 },
    ]);
  });

  it('has an empty report for no records', () => {
    const empty = buildReport([]);
    expect(empty.summary).toMatchObject({ runs: 0, first: null, last: null, utilization: null });
    expect(empty.advice).toEqual([{ kind: 'insufficient_data', message: '0 runs recorded: advice needs at least 3' }]);
  });
});

describe('advice', () => {
  it.each<[string, ReturnType<typeof runs>, AdviceKind[], RegExp]>([
    ['two runs are not a pattern', runs([0.99, 0.99], { overflow: 'summarize' }), ['insufficient_data'], /2 runs recorded: advice needs at least 3/],
    [
      'frequent overflow at ~100% is too tight',
      runs([0.99, 0.98, 0.97], { overflow: 'summarize', requested: 20_000 }),
      ['too_tight'],
      /3 of 3 runs overflowed .*mean 98%.*raise --max-tokens to about 27,000 .*raise relevance_scoring\.thresholds\.include_minimum/,
    ],
    [
      'full budgets without overflow are too tight too',
      runs([0.96, 0.97, 0.2, 0.99]),
      ['too_tight'],
      /0 of 4 runs overflowed and 3 used 95% or more/,
    ],
    ['mostly under 30% is too loose', runs([0.1, 0.2, 0.15, 0.6]), ['too_loose'], /3 of 4 runs used under 30% .*largest run 6,000 tokens\): lower --max-tokens .* to about 10,000/],
    ['between the two is fine', runs([0.5, 0.7, 0.65]), ['ok'], /^budgets fit: mean utilization 61.7%, overflow in 0 of 3 runs$/],
  ])('%s', (_name, records, kinds, message) => {
    const advice = buildReport(records).advice;
    expect(advice.map((a) => a.kind)).toEqual(kinds);
    expect(advice[0]?.message).toMatch(message);
  });
});

describe('renderReport', () => {
  it('prints aligned tables of runs, the summary, the files and the advice', () => {
    const text = renderReport(buildReport(runs([0.1, 0.2, 0.15], { dropped: ['docs/big.md'] })), { recordsDir: '/repo/.aiwg/rag/budget-records' });
    const lines = text.split('\n');
    expect(lines[0]).toBe(`CONTEXT REPORT: 3 runs from ${day(1)} to ${day(3)}`);
    const header = lines.find((l) => l.trimStart().startsWith('Run '));
    const row = lines.find((l) => l.trimStart().startsWith('run-1 '));
    expect(header).toBeDefined();
    // Right-aligned numeric columns end at the same offset as their header.
    expect(row?.indexOf('10%')).toBe((header?.indexOf('Util') ?? 0) + 'Util'.length - '10%'.length);
    expect(text).toContain('Utilization: mean 15%, min 10%, max 20%');
    expect(text).toMatch(/docs\/big\.md\s+0\s+3/);
    expect(text).toMatch(/ADVICE:\n {2}- budgets look too loose/);
  });

  it('says how to get records when there are none', () => {
    expect(renderReport(buildReport([]), { recordsDir: '/r/.aiwg/rag/budget-records' })).toBe(
      'No budget records in /r/.aiwg/rag/budget-records: run "aiwg context-budget <task>" first.\n',
    );
  });
});
