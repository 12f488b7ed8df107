import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import { BudgetExceededError } from '../../src/errors.js';
import { defaultConfig, OVERFLOW_STRATEGIES, TIER_NAMES, type Level } from '../../src/config/schema.js';
import { createTokenizer, TOKENIZER_IDS, type Tokenizer, type TokenizerId } from '../../src/tokenize/tokenizer.js';
import type { LevelContent } from '../../src/types.js';
import type { HistoryMessage, RenderFormat } from '../../src/stages.js';
import { testContext } from '../helpers/fakes.js';
import { allocateInput, planFor, scored, withBudget } from './fixtures.js';

const tokenizers = {} as Record<TokenizerId, Tokenizer>;
beforeAll(async () => {
  for (const id of TOKENIZER_IDS) tokenizers[id] = await createTokenizer(id);
});

/** Text fragments that stress wrappers, fences, BPE merges and special tokens. */
const FRAGMENTS = ['</context>', '<context path="x">', '</tier>', '<system>', '```', '````', '<|endoftext|>', '\n', '\n\n', '  ', '"', '&', 'ü', '日本語', '🙂', 'export function f() {}', '>\n<', '\\', '\t'];
const text = (max: number) =>
  fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.lorem({ maxCount: 8 })), { maxLength: max }).map((parts) => parts.join(''));

const fileArb = fc.record({
  name: fc.stringMatching(/^[a-z]{1,8}(\/[a-z ]{1,6})?\.(ts|md|json)$/),
  relevance: fc.double({ min: 0, max: 1, noNaN: true }),
  mentioned: fc.boolean(),
  full: text(40),
  detailed: fc.option(text(12), { nil: undefined }),
  summary: fc.option(text(5), { nil: undefined }),
  stub: text(2),
});

const historyArb = fc.array(
  fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'system'), content: text(10), call: fc.boolean() }),
  { maxLength: 6 },
);

describe('THE GUARANTEE: count(rendered) <= available', () => {
  it.each(TOKENIZER_IDS)('holds for random repositories, budgets, formats and strategies (%s)', (id) => {
    const tokenizer = tokenizers[id];
    fc.assert(
      fc.property(
        fc.uniqueArray(fileArb, { maxLength: 8, selector: (f) => f.name }),
        historyArb,
        fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 80, max: 4000 })),
        fc.constantFrom<RenderFormat>('xml', 'markdown', 'json'),
        fc.constantFrom(...OVERFLOW_STRATEGIES),
        fc.constantFrom<'optimal' | 'greedy'>('optimal', 'greedy'),
        fc.boolean(),
        (files, rawHistory, budget, format, overflow, strategy, flow) => {
          const config = withBudget(defaultConfig(), budget, { overflow_strategy: overflow, strategy, flow_unused: flow });
          const input = allocateInput(
            files.map((f) => ({ file: scored(f.name, f.relevance, { mentioned: f.mentioned }), levels: levelsOf(f, tokenizer) })),
            planFor(budget, config),
            { history: toHistory(rawHistory), format, task: 'fix </boot> the <context> bug' },
          );
          let result;
          try {
            result = allocateContext(input, testContext({ config, tokenizer }));
          } catch (error) {
            expect(error).toBeInstanceOf(BudgetExceededError);
            expect(overflow).toBe('error');
            return;
          }
          expect(tokenizer.count(result.rendered)).toBe(result.renderedTokens);
          expect(result.renderedTokens).toBeLessThanOrEqual(budget);
          const recordTokens = TIER_NAMES.reduce((n, t) => n + result.tiers[t].files.reduce((s, f) => s + f.tokens, 0), 0);
          expect(recordTokens).toBeLessThanOrEqual(budget);
          for (const t of TIER_NAMES) expect(result.tiers[t].total_tokens).toBeLessThanOrEqual(result.tiers[t].budget);
          if (format === 'json' && result.rendered !== '') expect(() => JSON.parse(result.rendered)).not.toThrow();
          if (format === 'xml') {
            const opened = result.rendered.match(/<context /g)?.length ?? 0;
            expect(result.rendered.match(/<\/context>/g)?.length ?? 0).toBe(opened);
            expect(opened).toBe(TIER_NAMES.reduce((n, t) => n + (t === 'history' ? 0 : result.tiers[t].files.length), 0));
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});

function levelsOf(f: { full: string; detailed?: string; summary?: string; stub: string }, tokenizer: Tokenizer): LevelContent[] {
  const entries: [Level, string | undefined][] = [['full', f.full], ['detailed', f.detailed], ['summary', f.summary], ['stub', f.stub]];
  return entries.filter((e): e is [Level, string] => e[1] !== undefined).map(([level, content]) => ({ level, content, tokens: tokenizer.count(content) }));
}

function toHistory(raw: { role: string; content: string; call: boolean }[]): HistoryMessage[] {
  return raw.map((m, k) =>
    m.role === 'assistant' && m.call
      ? { role: m.role, content: m.content, tool_calls: [{ id: `c${k}`, name: 'run', arguments: '{}' }] }
      : m.role === 'tool'
        ? { role: m.role, content: m.content, tool_call_id: `c${k - 1}` }
        : { role: m.role, content: m.content },
  );
}
