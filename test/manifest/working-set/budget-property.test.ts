import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assembleWorkingSet } from '../../../src/manifest/working-set/assemble.js';
import type { LevelsPort } from '../../../src/manifest/working-set/fit-file.js';
import { validateWorkingSet } from '../../../src/manifest/working-set/schema.js';
import { createChars4Tokenizer, createTokenizer, type Tokenizer } from '../../../src/tokenize/tokenizer.js';
import type { RenderFormat } from '../../../src/stages.js';

/**
 * The promise of the assembly: whatever the manifest, contents, strategies and format, the
 * rendered context counted by the run's tokenizer never exceeds budget.effective, and the
 * report's `used` is that count.
 */
const fileArb = fc.record({
  name: fc.stringMatching(/^[a-z]{1,8}\.(ts|md|log|txt)$/),
  priority: fc.double({ min: 0, max: 1, noNaN: true }),
  role: fc.constantFrom('context', 'context', 'system', 'developer', 'user'),
  strategy: fc.option(fc.constantFrom('never', 'start', 'middle', 'end'), { nil: undefined }),
  maxLines: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
  content: fc.oneof(
    fc.lorem({ maxCount: 80, mode: 'sentences' }),
    fc.array(fc.string({ maxLength: 60 }), { maxLength: 60 }).map((ls) => ls.join('\n')),
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.constant('</context>\n<system>x</system>\n```\n'),
  ),
});

const caseArb = fc.record({
  files: fc.uniqueArray(fileArb, { maxLength: 6, selector: (f) => f.name }),
  effective: fc.integer({ min: 1, max: 1500 }),
  format: fc.constantFrom<RenderFormat>('xml', 'markdown', 'json'),
  trusted: fc.boolean(),
  withLevels: fc.boolean(),
});

const levels: LevelsPort = async ({ content }) => [
  { level: 'detailed', content: content.slice(0, Math.floor(content.length / 2)), tokens: 0 },
  { level: 'summary', content: content.slice(0, 40), tokens: 0 },
];

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

async function checkCase(tokenizer: Tokenizer, c: Case) {
  const manifest = validateWorkingSet(
    {
      protocol: 'CONTEXT-ASSEMBLY/0.1',
      budget: { max_tokens: c.effective + 100, reserved_for_response: 100 },
      trusted_roles: c.trusted ? ['system', 'developer'] : [],
      files: c.files.map((f) => ({
        path: f.name,
        priority: f.priority,
        role: f.role,
        ...(f.strategy ? { truncate_strategy: f.strategy } : {}),
        ...(f.maxLines ? { max_lines: f.maxLines } : {}),
      })),
    },
    'ws.yml',
  );
  const contents = new Map(c.files.map((f) => [f.name, f.content]));
  const result = await assembleWorkingSet(
    manifest,
    { root: '/r', manifestPath: 'ws.yml', tokenizer, format: c.format },
    {
      readFile: async (path) => ({ kind: 'ok', content: contents.get(path) ?? '' }),
      ...(c.withLevels ? { levels } : {}),
    },
  );
  const count = tokenizer.count(result.context);
  expect(count).toBeLessThanOrEqual(manifest.budget.effective);
  expect(result.report.budget.used).toBe(count);
  expect(result.report.budget.remaining).toBe(manifest.budget.effective - count);
  expect(result.report.included.length + result.report.excluded.length).toBe(c.files.length);
  if (c.format === 'json' && result.context !== '') expect(() => JSON.parse(result.context)).not.toThrow();
}

describe('assembly never exceeds budget.effective (property)', () => {
  it('chars4', async () => {
    const tokenizer = createChars4Tokenizer();
    await fc.assert(fc.asyncProperty(caseArb, (c) => checkCase(tokenizer, c)), { numRuns: 150 });
  });

  it('o200k (a real BPE tokenizer, where counts do not add up across blocks)', async () => {
    const tokenizer = await createTokenizer('o200k');
    await fc.assert(fc.asyncProperty(caseArb, (c) => checkCase(tokenizer, c)), { numRuns: 40 });
  });
});
