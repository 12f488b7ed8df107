import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { createFileLevels } from '../../src/summarize/file-levels.js';
import { createSyntaxEngine } from '../../src/summarize/syntax/engine.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import { testContext } from '../helpers/fakes.js';

const EXTENSIONS = ['ts', 'py', 'go', 'rs', 'rb', 'md', 'json', 'yaml', 'toml', 'txt', 'sh', 'java'];
const LINES = [
  'export function f(a: number): number {',
  'def g(self, x):',
  '    return x + 1',
  '}',
  'class K {',
  '  private m() { return 1; }',
  '# Heading',
  '// a comment',
  '"""doc"""',
  'key: value',
  '  nested: [1, 2]',
  '[table]',
  'name = "x"',
  'fn h() -> u8 { 0 }',
  'end',
  '',
  '{ "a": 1 }',
  '    deeply indented line with words',
  'x'.repeat(300),
];

describe('levels property: any file, any limits', () => {
  const syntax = createSyntaxEngine();
  const tokenizer = createChars4Tokenizer();
  it('tokens are exact, within limits, and never increase from full to stub', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...EXTENSIONS),
        fc.array(fc.oneof(fc.constantFrom(...LINES), fc.string({ maxLength: 40 })), { maxLength: 80 }),
        fc.record({ detailed: fc.integer({ min: 0, max: 400 }), summary: fc.integer({ min: 0, max: 120 }), stub: fc.integer({ min: 0, max: 60 }) }),
        async (ext, lines, limits) => {
          const content = lines.join('\n');
          const config = ConfigSchema.parse({
            summarization: { levels: { detailed: { token_limit: limits.detailed }, summary: { token_limit: limits.summary }, stub: { token_limit: limits.stub } } },
          });
          const file = { path: `dir/file.${ext}`, content, size: content.length, mtimeMs: 0, hash: createHash('sha256').update(content).digest('hex'), lineCount: lines.length };
          const { levels } = await createFileLevels(config, { syntax })(file, 0, testContext({ config, tokenizer }));
          expect(levels.map((l) => l.level)).toEqual(['full', 'detailed', 'summary', 'stub']);
          expect(levels[0]!.content).toBe(content);
          const limitOf = [-1, limits.detailed, limits.summary, limits.stub];
          levels.forEach((level, i) => {
            expect(level.tokens).toBe(tokenizer.count(level.content));
            if (limitOf[i]! >= 0) expect(level.tokens).toBeLessThanOrEqual(limitOf[i]!);
            if (i > 0) expect(level.tokens).toBeLessThanOrEqual(levels[i - 1]!.tokens);
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
