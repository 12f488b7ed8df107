import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { defaultTruncateStrategy, parseWorkingSet, workingSetJsonSchema } from '../../../src/manifest/working-set/schema.js';

const SCHEMA_FILE = join(import.meta.dirname, '../../../schemas/working-set.schema.json');

const BASE = `protocol: CONTEXT-ASSEMBLY/0.1
budget:
  max_tokens: 28000
  reserved_for_response: 4000
files:
  - path: src/main.ts
    priority: 0.8
`;

function errorOf(text: string): ConfigError {
  try {
    parseWorkingSet(text, 'ws.yml');
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('working-set schema', () => {
  it('parses the spec 001 example and resolves defaults', () => {
    const ws = parseWorkingSet(
      `${BASE}  - path: ./.agent/constitution.md
    priority: 1.0
    role: system
    truncate_strategy: never
  - path: tool/terminal/log-latest.txt
    priority: 0.3
    max_lines: 500
metadata:
  last_updated: "2025-12-30T12:30:00Z"
  assembled_by: model
`,
      'ws.yml',
    );
    expect(ws.budget).toEqual({ max_tokens: 28000, reserved_for_response: 4000, effective: 24000 });
    expect(ws.trusted_roles).toEqual([]);
    expect(ws.files).toEqual([
      { path: 'src/main.ts', priority: 0.8, role: 'context', truncate_strategy: 'middle', strategyExplicit: false },
      { path: '.agent/constitution.md', priority: 1, role: 'system', truncate_strategy: 'never', strategyExplicit: true },
      { path: 'tool/terminal/log-latest.txt', priority: 0.3, role: 'context', truncate_strategy: 'start', strategyExplicit: false, max_lines: 500 },
    ]);
    expect(ws.metadata).toEqual({ last_updated: '2025-12-30T12:30:00Z', assembled_by: 'model' });
  });

  it('accepts an effective budget smaller than max - reserved', () => {
    const ws = parseWorkingSet(BASE.replace('reserved_for_response: 4000', 'reserved_for_response: 4000\n  effective: 20000'), 'ws.yml');
    expect(ws.budget.effective).toBe(20000);
  });

  it.each([
    ['effective above max - reserved', BASE.replace('reserved_for_response: 4000', 'reserved_for_response: 4000\n  effective: 25000'), 'budget.effective', /effective 25000 is larger than max_tokens - reserved_for_response = 28000 - 4000 = 24000: set effective to 24000 or less/],
    ['a reserve eating the whole budget', BASE.replace('reserved_for_response: 4000', 'reserved_for_response: 28000'), 'budget.reserved_for_response', /leaves nothing of max_tokens 28000/],
    ['an unknown top-level key', `${BASE}fils: []\n`, '', /unknown key "fils": remove it or check the spelling/],
    ['an unknown file key', BASE.replace('priority: 0.8', 'priority: 0.8\n    strategy: end'), 'files.0', /files\.0: unknown key "strategy"/],
    ['a bad role', BASE.replace('priority: 0.8', 'priority: 0.8\n    role: admin'), 'files.0.role', /got "admin": use one of "system", "developer", "user", "context"/],
    ['a bad strategy', BASE.replace('priority: 0.8', 'priority: 0.8\n    truncate_strategy: tail'), 'files.0.truncate_strategy', /use one of "never", "start", "middle", "end"/],
    ['a priority above 1', BASE.replace('priority: 0.8', 'priority: 1.5'), 'files.0.priority', /1\.5 is too big: use a value <= 1/],
    ['a missing priority', BASE.replace('    priority: 0.8\n', ''), 'files.0.priority', /is required \(number\)/],
    ['max_lines 0', BASE.replace('priority: 0.8', 'priority: 0.8\n    max_lines: 0'), 'files.0.max_lines', /too small/],
    ['another protocol', BASE.replace('0.1', '9.9'), 'protocol', /use one of "CONTEXT-ASSEMBLY\/0\.1"/],
    ['a path through ..', BASE.replace('src/main.ts', '../secrets.txt'), 'files.0.path', /leads outside the root through "\.\."/],
    ['a path that climbs out after descending', BASE.replace('src/main.ts', 'src/../../x'), 'files.0.path', /outside the root/],
    ['an absolute path', BASE.replace('src/main.ts', '/etc/passwd'), 'files.0.path', /is absolute: write it relative to the root/],
    ['a duplicate path', `${BASE}  - path: ./src/main.ts\n    priority: 0.1\n`, 'files.1.path', /already listed at files\.0/],
    ['a bad timestamp', `${BASE}metadata:\n  last_updated: yesterday\n`, 'metadata.last_updated', /not a valid datetime/],
    ['a bad actor', `${BASE}metadata:\n  assembled_by: robot\n`, 'metadata.assembled_by', /use one of "model", "orchestrator", "user"/],
  ])('refuses %s, naming file, key path and fix', (_name, text, keyPath, message) => {
    const error = errorOf(text);
    expect(error.keyPath).toBe(keyPath);
    expect(error.message).toMatch(/^ws\.yml: /);
    expect(error.message).toMatch(message);
    expect(error.exitCode).toBe(2);
  });

  it('lists every problem when there are several', () => {
    const error = errorOf(BASE.replace('priority: 0.8', 'priority: 2\n    role: admin'));
    expect(error.message).toMatch(/2 problems:\n {2}files\.0\.priority: .*\n {2}files\.0\.role: /);
  });

  it('refuses YAML that does not parse', () => {
    expect(errorOf('budget: [\n').message).toMatch(/ws\.yml: not valid YAML/);
  });
});

describe('default truncate_strategy by role and extension', () => {
  it.each([
    ['system', 'AGENTS.md', 'never'],
    ['developer', 'current_task.md', 'end'],
    ['user', 'request.txt', 'end'],
    ['context', 'build.log', 'start'],
    ['context', 'tool/terminal/log-latest.txt', 'start'],
    ['context', 'events.jsonl', 'start'],
    ['context', 'docs/guide.md', 'end'],
    ['context', 'notes.txt', 'end'],
    ['context', 'src/main.ts', 'middle'],
    ['context', 'catalog.py', 'middle'],
    ['context', 'Makefile', 'middle'],
  ] as const)('%s %s -> %s', (role, path, expected) => {
    expect(defaultTruncateStrategy(role, path)).toBe(expected);
  });
});

describe('schemas/working-set.schema.json', () => {
  it('is generated from the zod schema (no drift)', () => {
    const generated = `${JSON.stringify(workingSetJsonSchema(), null, 2)}\n`;
    // Regenerate with: AIWG_UPDATE_SCHEMAS=1 npx vitest run test/manifest/working-set/schema.test.ts
    if (process.env.AIWG_UPDATE_SCHEMAS === '1') writeFileSync(SCHEMA_FILE, generated);
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(generated);
  });

  it('accepts the shipped example and refuses what zod refuses (ajv, strict mode)', () => {
    const validate = new Ajv2020({ allErrors: true, strict: true, formats: { 'date-time': true } }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
    const example = readFileSync(join(import.meta.dirname, '../../../.aiwg/examples/working-set.yml'), 'utf8');
    expect(validate(parse(example))).toBe(true);
    expect(parseWorkingSet(example, 'example').files.length).toBeGreaterThan(3);
    expect(validate(parse(BASE.replace('priority: 0.8', 'priority: 0.8\n    role: admin')))).toBe(false);
    expect(validate(parse(`${BASE}fils: []\n`))).toBe(false);
  });

  it('describes the keys of the manifest', () => {
    const schema = workingSetJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(['budget', 'conversation', 'files', 'metadata', 'protocol', 'trusted_roles']);
    expect(schema.required).toEqual(expect.arrayContaining(['protocol', 'budget']));
  });
});
