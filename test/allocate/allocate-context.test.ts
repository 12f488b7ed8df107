import { beforeAll, describe, expect, it } from 'vitest';
import { allocateContext } from '../../src/allocate/allocate-context.js';
import { BudgetExceededError } from '../../src/errors.js';
import { defaultConfig, TIER_NAMES, type OverflowStrategy } from '../../src/config/schema.js';
import { createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { AllocateResult } from '../../src/stages.js';
import { testContext } from '../helpers/fakes.js';
import { allocateInput, levelsFor, planFor, scored, withBudget } from './fixtures.js';

let o200k: Tokenizer;
beforeAll(async () => {
  o200k = await createTokenizer('o200k');
});

const FILES = [
  { path: 'src/a.ts', relevance: 0.9, lines: 60 },
  { path: 'src/b.ts', relevance: 0.75, lines: 60 },
  { path: 'src/c.ts', relevance: 0.6, lines: 60 },
  { path: 'docs/d.md', relevance: 0.4, lines: 20 },
  { path: 'x.ts', relevance: 0.1, lines: 5 },
];

function run(maxTokens: number, overrides: Parameters<typeof withBudget>[2] = {}, extra: Parameters<typeof allocateInput>[2] = {}) {
  const config = withBudget(defaultConfig(), maxTokens, overrides);
  const ctx = testContext({ config, tokenizer: o200k });
  const files = FILES.map((f) => ({ file: scored(f.path, f.relevance, { category: f.path.endsWith('.md') ? 'documentation' : 'source_code' }), levels: levelsFor(f.path, f.lines, o200k) }));
  return allocateContext(allocateInput(files, planFor(maxTokens, config), extra), ctx);
}

const levels = (r: AllocateResult) => Object.fromEntries(TIER_NAMES.flatMap((t) => r.tiers[t].files.map((f) => [f.path, f.level + (f.truncated ? '/truncated' : '')])));

function expectGuarantees(r: AllocateResult, available: number) {
  expect(o200k.count(r.rendered)).toBe(r.renderedTokens);
  expect(r.renderedTokens).toBeLessThanOrEqual(available);
  const recordTokens = TIER_NAMES.reduce((n, t) => n + r.tiers[t].total_tokens, 0);
  expect(recordTokens).toBeLessThanOrEqual(available);
  for (const t of TIER_NAMES) expect(r.tiers[t].total_tokens).toBeLessThanOrEqual(r.tiers[t].budget);
}

describe('allocateContext', () => {
  it('keeps every tier at its starting level when the budget is ample, and excludes low relevance with a reason', () => {
    const r = run(20000);
    expect(levels(r)).toEqual({ 'src/a.ts': 'full', 'src/b.ts': 'full', 'src/c.ts': 'detailed', 'docs/d.md': 'summary' });
    expect(r.overflow).toEqual({ occurred: false, strategy_applied: null, files_affected: [] });
    expect(r.excluded).toEqual([{ path: 'x.ts', relevance_score: 0.1, reason: 'relevance 0.1 below include_minimum 0.3' }]);
    expect(r.tiers.primary.budget).toBe(10000);
    expectGuarantees(r, 20000);
  });

  it('lets unused budget flow: primary takes what supporting, reference and history leave', () => {
    // Primary needs ~1,700 tokens, its own 50% is 1,500; the other tiers need far less than theirs.
    const flowing = run(3000);
    expect(levels(flowing)['src/a.ts']).toBe('full');
    expect(levels(flowing)['src/b.ts']).toBe('full');
    expect(flowing.tiers.primary.budget).toBeGreaterThan(1500);
    expect(flowing.overflow.occurred).toBe(false);
    const closed = run(3000, { flow_unused: false });
    expect(closed.overflow.occurred).toBe(true);
    expect(closed.tiers.primary.total_tokens).toBeLessThanOrEqual(1500);
    expectGuarantees(flowing, 3000);
    expectGuarantees(closed, 3000);
  });

  it.each<[OverflowStrategy, Record<string, string>]>([
    // Monotone in rank (a > b > c > d): the best file keeps the most, nobody ranked above a kept file is dropped.
    ['summarize', { 'src/a.ts': 'full', 'src/b.ts': 'detailed', 'src/c.ts': 'summary', 'docs/d.md': 'summary' }],
    ['prioritize', { 'src/a.ts': 'full', 'src/b.ts': 'detailed', 'src/c.ts': 'summary', 'docs/d.md': 'summary' }],
    // By rank, whole while it fits, then cut to what is left; the files ranked below get nothing.
    ['truncate', { 'src/a.ts': 'full', 'src/b.ts': 'full/truncated' }],
  ])('overflow strategy %s', (strategy, expected) => {
    const r = run(1500, { overflow_strategy: strategy });
    expect(levels(r)).toEqual(expected);
    expect(r.overflow.occurred).toBe(true);
    expect(r.overflow.strategy_applied).toBe(strategy);
    expectGuarantees(r, 1500);
    if (strategy === 'prioritize' || strategy === 'summarize') {
      // The second-ranked file is degraded, not dropped (it used to be dropped while c and d got in).
      expect(r.overflow.files_affected).toEqual(['src/b.ts', 'src/c.ts']);
      expect(r.warnings).not.toContain('1 file excluded due to budget');
      expect(r.excluded.map((e) => e.path)).toEqual(['x.ts']);
    }
    if (strategy === 'truncate') {
      expect(r.warnings).toEqual(['2 files excluded due to budget', '1 file truncated']);
      expect(r.rendered).toMatch(/cut/);
    }
  });

  it('overflow strategy error throws with the numbers and the flags to change', () => {
    expect(() => run(1500, { overflow_strategy: 'error' })).toThrow(BudgetExceededError);
    expect(() => run(1500, { overflow_strategy: 'error' })).toThrow(/^primary tier needs [\d,]+ tokens but the budget leaves [\d,]+: raise --max-tokens or use --overflow summarize$/);
  });

  it('greedy and optimal agree when nothing overflows, and optimal is worth at least as much when it does', () => {
    expect(levels(run(20000, { strategy: 'greedy' }))).toEqual(levels(run(20000)));
    const value = (r: AllocateResult) => r.tiers.primary.files.reduce((n, f) => n + f.relevance_score * ({ full: 1, detailed: 0.6, summary: 0.3, stub: 0.05 } as const)[f.level], 0);
    for (const max of [600, 900, 1200, 1500]) {
      expect(value(run(max, { overflow_strategy: 'summarize' }))).toBeGreaterThanOrEqual(value(run(max, { overflow_strategy: 'summarize', strategy: 'greedy' })) - 1e-9);
    }
  });

  it('puts an @-mentioned file in primary and renders it', () => {
    const config = withBudget(defaultConfig(), 5000);
    const files = [
      { file: scored('src/a.ts', 0.9), levels: levelsFor('src/a.ts', 10, o200k) },
      { file: scored('notes/named.md', 0.05, { mentioned: true }), levels: levelsFor('notes/named.md', 10, o200k) },
    ];
    const r = allocateContext(allocateInput(files, planFor(5000, config)), testContext({ config, tokenizer: o200k }));
    expect(r.tiers.primary.files.map((f) => f.path)).toEqual(['src/a.ts', 'notes/named.md']);
    expect(r.rendered).toContain('<context path="notes/named.md" level="full"');
  });

  it('renders a minimal header and no files when the budget cannot hold the header', () => {
    const r = run(60);
    expect(TIER_NAMES.every((t) => r.tiers[t].files.length === 0)).toBe(true);
    expect(r.rendered).toMatch(/^<boot>\nBudget: 60 tokens available; too small for any file\n<\/boot>\n$/);
    expect(r.warnings.some((w) => /cannot hold the boot header/.test(w))).toBe(true);
    expectGuarantees(r, 60);
    const none = run(3);
    expect(none.rendered).toBe('');
    expectGuarantees(none, 3);
  });

  it('fills the history tier with the newest messages and keeps tool calls with their results', () => {
    const history = [
      { role: 'user', content: 'old question '.repeat(200) },
      { role: 'assistant', content: 'let me look', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"src/a.ts"}' }] },
      { role: 'tool', tool_call_id: 'c1', content: 'file contents' },
      { role: 'user', content: 'thanks, now fix it' },
    ];
    // History receives no flowing budget here: its own 5% (100 tokens) holds the newest three.
    const r = run(2000, { flow_order: ['primary', 'supporting', 'reference'] }, { history });
    expect(r.tiers.history.files.map((f) => f.path)).toEqual(['history:1:assistant', 'history:2:tool', 'history:3:user']);
    expect(r.warnings).toContain('1 older history message left out of the window');
    expect(r.rendered).toMatch(/<message index="2" role="tool" tool_call_id="c1" tokens="\d+">\nfile contents\n<\/message>/);
    expectGuarantees(r, 2000);
    const flowing = run(4000, {}, { history });
    expect(flowing.tiers.history.files).toHaveLength(4);
    expect(flowing.tiers.history.files[0]!.truncated).toBe(true);
  });

  it('reports the boot header: root, task, budget used and what was included', () => {
    const r = run(20000);
    const header = r.rendered.slice(0, r.rendered.indexOf('</boot>'));
    expect(header).toContain('Root: /repo');
    expect(header).toContain('Task: fix the retry loop');
    expect(header).toContain(`Budget: 20000 tokens available, ${r.renderedTokens} used`);
    expect(header).toContain('Included: primary 2 files (full 2); supporting 1 file (detailed 1); reference 1 file (summary 1); history 0 messages');
    expect(header).toContain('Excluded: 1 file');
  });

  it.each(['markdown', 'json'] as const)('renders the %s format with the same allocation', (format) => {
    const r = run(20000, {}, { format, history: [{ role: 'user', content: 'hi </context>' }] });
    expect(levels(r)).toEqual({ ...levels(run(20000)), 'history:0:user': 'full' });
    expectGuarantees(r, 20000);
    if (format === 'json') {
      const doc = JSON.parse(r.rendered);
      expect(doc.boot.budget).toEqual({ available: 20000, used: r.renderedTokens });
      expect(doc.tiers.primary.map((f: { path: string }) => f.path)).toEqual(['src/a.ts', 'src/b.ts']);
      expect(doc.tiers.history[0].content).toBe('hi </context>');
    } else {
      expect(r.rendered).toMatch(/^# Context\n/);
      expect(r.rendered.indexOf('## Primary context')).toBeLessThan(r.rendered.indexOf('## Supporting context'));
      expect(r.rendered.indexOf('## Reference context')).toBeLessThan(r.rendered.indexOf('## Conversation history'));
    }
  });

  it('is deterministic: same input, same bytes', () => {
    expect(run(1500, { overflow_strategy: 'summarize' }).rendered).toBe(run(1500, { overflow_strategy: 'summarize' }).rendered);
  });

  it('counts requested tokens at starting levels', () => {
    const ample = run(20000);
    expect(ample.requestedTokens).toBe(TIER_NAMES.reduce((n, t) => n + (t === 'history' ? 0 : ample.tiers[t].total_tokens), 0));
    expect(run(1500).requestedTokens).toBe(ample.requestedTokens);
  });
});
