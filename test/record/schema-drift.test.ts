import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { BUDGET_RECORD_SCHEMA_FILE, renderBudgetRecordJsonSchema } from '../../src/record/record-json-schema.js';
import { makeRecord, recordFile } from './record-fixtures.js';

const committed = readFileSync(resolve(BUDGET_RECORD_SCHEMA_FILE), 'utf8');

describe(BUDGET_RECORD_SCHEMA_FILE, () => {
  it('is what `npm run schemas` generates from BudgetRecordSchema (run it after changing the record)', () => {
    expect(committed).toBe(renderBudgetRecordJsonSchema());
  });

  it('accepts a valid record and rejects a broken one', () => {
    // ajv-formats checks `format: date-time` too, not only the pattern.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(committed));
    const record = makeRecord({ runId: 'r', timestamp: '2026-01-15T10:00:00.000Z', rendered: 10, files: { primary: [recordFile('a.ts', 'full', 10)] } });
    expect(validate(record)).toBe(true);
    expect(validate({ ...record, allocation: { ...record.allocation, primary: { ...record.allocation.primary, files: [{ ...recordFile('a.ts', 'full', 10), level: 'huge' }] } } })).toBe(false);
    expect(validate({ ...record, extra: 1 })).toBe(false);
  });
});
