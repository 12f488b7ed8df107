import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendBudgetLog, budgetLogLine } from '../../src/record/budget-log.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

/** Every command that applies a budget writes the one line shape through the one writer. */
describe('the budget log', () => {
  const spec000 = ['run_id', 'phase', 'original_tokens', 'budget_tokens', 'truncated_tokens', 'was_truncated', 'ts'];

  it('puts spec 000 fields first, in order, and a task run adds task and utilization', async () => {
    const dir = makeTempDir('aiwg-budget-log-');
    try {
      const base = { original_tokens: 10, budget_tokens: 8, truncated_tokens: 8, was_truncated: true, ts: '2026-03-02T12:00:00.000Z' };
      await appendBudgetLog(dir.root, { ...base, utilization: 1, task: 'fix it', phase: null, run_id: 'task-run' });
      await appendBudgetLog(dir.root, { ts: base.ts, phase: 2, run_id: 'handoff', ...base });
      const lines = readFileSync(join(dir.root, '.aiwg/rag/context-budget-log.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as object);
      expect(lines.map((l) => Object.keys(l))).toEqual([[...spec000, 'task', 'utilization'], spec000]);
      expect(readFileSync(join(dir.root, '.aiwg/rag/.gitignore'), 'utf8').length).toBeGreaterThan(0);
    } finally {
      dir.cleanup();
    }
  });

  it('drops nothing it is given and adds nothing', () => {
    const line = { run_id: 'r', phase: 3, original_tokens: 1, budget_tokens: 2, truncated_tokens: 1, was_truncated: false, ts: 't' };
    expect(budgetLogLine(line)).toEqual(line);
  });
});
