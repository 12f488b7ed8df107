#!/usr/bin/env node
// Writes the JSON Schemas generated from the zod schemas. Run through `npm run schemas`,
// which compiles first: this script reads the compiled modules in dist/.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { BUDGET_RECORD_SCHEMA_FILE, renderBudgetRecordJsonSchema } = await import(pathToFileURL(join(root, 'dist/src/record/record-json-schema.js')).href);

writeFileSync(join(root, BUDGET_RECORD_SCHEMA_FILE), renderBudgetRecordJsonSchema());
console.log(`wrote ${BUDGET_RECORD_SCHEMA_FILE}`);
