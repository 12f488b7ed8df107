import { z } from 'zod';
import { BudgetRecordSchema, RECORD_VERSION } from './record-schema.js';

/** Where the generated JSON Schema lives, relative to the package root. */
export const BUDGET_RECORD_SCHEMA_FILE = 'schemas/budget-record.schema.json';

/**
 * schemas/budget-record.schema.json as text: JSON Schema 2020-12 generated from
 * BudgetRecordSchema with `z.toJSONSchema`, so the published contract and the validator in
 * code cannot drift. `npm run schemas` writes it; test/record/schema-drift.test.ts fails
 * when the committed file differs.
 */
export function renderBudgetRecordJsonSchema(): string {
  const generated = z.toJSONSchema(BudgetRecordSchema, { target: 'draft-2020-12', io: 'output' });
  const { $schema, ...rest } = generated;
  const document = {
    $schema,
    title: `aiwg context budget record ${RECORD_VERSION}`,
    description:
      'One run of aiwg context-budget: spec 003 context_budget_record (allocation per tier, overflow, metrics) plus per-file factors, exclusions with reasons, warnings, timings, tool version and config hash. Paths are root-relative with "/" separators.',
    ...rest,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
