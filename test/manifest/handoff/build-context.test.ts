import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildHandoffContext,
  capNarrative,
  narrativeCapFor,
  selectHandoffFields,
} from '../../../src/manifest/handoff/build-context.js';
import { DEFAULT_MANIFESTS, resolveManifest, type PhaseHandoff, type PhaseManifest } from '../../../src/manifest/handoff/manifests.js';
import { createChars4Tokenizer } from '../../../src/tokenize/tokenizer.js';

const LONG_NARRATIVE = 'N'.repeat(3000);

const phase1: PhaseHandoff = {
  phase: 1,
  goal: 'Ship the parser',
  epic_id: 'ag-42',
  verdicts: { pre_mortem: 'WARN', scope: 'PASS' },
  artifacts_produced: ['docs/plan.md'],
  decisions_made: ['Use a recursive descent parser'],
  open_risks: ['Grammar ambiguity'],
  narrative: 'Discovery found two grammars.',
};
const phase2: PhaseHandoff = {
  phase: 2,
  goal: '',
  verdicts: { pre_mortem: 'PASS', vibe: 'PASS' },
  artifacts_produced: ['src/parser.ts'],
  decisions_made: ['Errors carry spans'],
  open_risks: [],
  narrative: 'Implementation wrote the parser.',
};

function manifest(fields: string[], cap: number, max = 0, phase = 9): PhaseManifest {
  return { phase, handoff_fields: fields, narrative_cap: cap, max_tokens: max };
}

describe('narrative_cap semantics (spec 000 table, all four rows)', () => {
  it.each([
    ['fields non-empty, cap 0 -> omit', ['goal'], 0, null],
    ['fields non-empty, cap > 0 -> cap', ['goal'], 300, 300],
    ['fields empty, cap 0 -> default 1000', [], 0, 1000],
    ['fields empty, cap > 0 -> cap', [], 250, 250],
  ])('%s', (_name, fields, cap, expected) => {
    expect(narrativeCapFor({ handoff_fields: fields, narrative_cap: cap })).toBe(expected);
    const result = selectHandoffFields([{ phase: 1, narrative: LONG_NARRATIVE }], manifest(fields, cap));
    const narrative = result.sections[0]?.narrative;
    if (expected === null) {
      expect(narrative).toBeUndefined();
      expect(result.fields).not.toContain('narrative');
    } else {
      expect(Array.from(narrative ?? '')).toHaveLength(expected);
      expect(narrative?.endsWith('...')).toBe(true);
      expect(result.fields).toContain('narrative');
    }
  });

  it('a narrative within the cap is kept as written', () => {
    const result = selectHandoffFields([{ phase: 1, narrative: 'short' }], manifest(['goal'], 300));
    expect(result.sections[0]?.narrative).toBe('short');
  });

  it('listing narrative with cap 0 still omits it, and says so', () => {
    const result = selectHandoffFields([{ phase: 1, narrative: 'x' }], manifest(['goal', 'narrative'], 0));
    expect(result.sections[0]?.narrative).toBeUndefined();
    expect(result.warnings.join('\n')).toMatch(/narrative_cap is 0, which omits it/);
  });

  it.each([
    ['cap below the marker length', 'abcdef', 2, 'ab'],
    ['cap of exactly the marker', 'abcdef', 3, 'abc'],
    ['cut with marker', 'abcdefgh', 6, 'abc...'],
    ['surrogate pairs count as one character', '😀😀😀😀😀', 4, '😀...'],
  ])('capNarrative: %s', (_name, text, cap, expected) => {
    expect(capNarrative(text, cap)).toBe(expected);
  });

  it('capNarrative never exceeds the cap (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 150 }), (text, cap) => {
        expect(Array.from(capNarrative(text, cap)).length).toBeLessThanOrEqual(cap);
      }),
    );
  });
});

describe('select (spec 000 field reference)', () => {
  it('goal comes from the latest handoff with a non-empty goal', () => {
    expect(selectHandoffFields([phase1, phase2], manifest(['goal'], 0)).goal).toBe('Ship the parser');
    expect(selectHandoffFields([phase1, { ...phase2, goal: 'Ship v2' }], manifest(['goal'], 0)).goal).toBe('Ship v2');
    expect(selectHandoffFields([phase1, { ...phase2, goal: '   ' }], manifest(['goal'], 0)).goal).toBe('Ship the parser');
  });

  it('epic_id is omitted when empty', async () => {
    const text = (await buildHandoffContext([{ phase: 1, goal: 'g', epic_id: '' }], manifest(['goal', 'epic_id'], 0))).text;
    expect(text).toContain('Goal: g');
    expect(text).not.toContain('Epic');
  });

  it('verdicts accumulate across phases, later phases overriding the same gate, sorted by gate', () => {
    expect(selectHandoffFields([phase1, phase2], manifest(['verdicts'], 0)).verdicts).toEqual([
      ['pre_mortem', 'PASS'],
      ['scope', 'PASS'],
      ['vibe', 'PASS'],
    ]);
  });

  it.each([
    ['goal', 'Goal:', ['Epic:', 'Verdicts:', 'Artifacts produced:', 'Decisions made:', 'Open risks:', 'Narrative:']],
    ['artifacts_produced', 'Artifacts produced:', ['Goal:', 'Decisions made:', 'Open risks:']],
    ['decisions_made', 'Decisions made:', ['Goal:', 'Artifacts produced:', 'Open risks:']],
    ['open_risks', 'Open risks:', ['Goal:', 'Artifacts produced:', 'Decisions made:']],
    ['verdicts', 'Verdicts:', ['Goal:', 'Artifacts produced:']],
  ])('fields not in the manifest are skipped: only %s', async (field, present, absent) => {
    const { text } = await buildHandoffContext([phase1, phase2], manifest([field], 0));
    expect(text).toContain(present);
    for (const label of absent) expect(text).not.toContain(label);
  });

  it('unknown field names are reported, not fatal', async () => {
    const result = await buildHandoffContext([phase1], manifest(['goal', 'golas', 'risks'], 0));
    expect(result.text).toContain('Goal: Ship the parser');
    expect(result.warnings).toEqual([
      expect.stringContaining('unknown handoff field "golas"'),
      expect.stringContaining('unknown handoff field "risks"'),
    ]);
    expect(result.fields).toEqual(['goal']);
  });

  it('missing fields in a handoff are simply absent', async () => {
    const result = await buildHandoffContext([{ phase: 1 }, { phase: 2, decisions_made: ['only this'] }], manifest([], 0));
    expect(result.text).toBe('## Context from prior phases\n\n### Phase 2 (implementation)\nDecisions made:\n- only this\n');
    expect(result.warnings).toEqual([]);
  });

  it('empty handoffs give an empty context and no budget application', async () => {
    const lines: unknown[] = [];
    const result = await buildHandoffContext([], resolveManifest(2), { log: async (line) => void lines.push(line) });
    expect(result).toEqual({ text: '', budget: null, fields: ['goal', 'epic_id', 'verdicts', 'decisions_made', 'open_risks', 'narrative'], warnings: [] });
    expect(lines).toEqual([]);
  });
});

describe('assemble (the text block)', () => {
  it('renders the permissive manifest (phase 1 default) with every field, in template order', async () => {
    const { text, budget } = await buildHandoffContext([phase1, phase2], { ...DEFAULT_MANIFESTS[1]!, phase: 3 });
    expect(budget).toBeNull();
    expect(text).toBe(
      [
        '## Context from prior phases',
        '',
        'Goal: Ship the parser',
        '',
        'Epic: ag-42',
        '',
        'Verdicts:\n- pre_mortem: PASS\n- scope: PASS\n- vibe: PASS',
        '',
        '### Phase 1 (discovery)\nArtifacts produced:\n- docs/plan.md\nDecisions made:\n- Use a recursive descent parser\nOpen risks:\n- Grammar ambiguity\nNarrative:\nDiscovery found two grammars.',
        '',
        '### Phase 2 (implementation)\nArtifacts produced:\n- src/parser.ts\nDecisions made:\n- Errors carry spans\nNarrative:\nImplementation wrote the parser.',
        '',
      ].join('\n'),
    );
  });

  it('phase 3 default: goal, epic, verdicts, artifacts and a narrative capped at 1000', async () => {
    const { text } = await buildHandoffContext([phase1, { ...phase2, narrative: LONG_NARRATIVE }], resolveManifest(3));
    expect(text).toContain('Artifacts produced:\n- src/parser.ts');
    expect(text).not.toContain('Decisions made');
    expect(text).not.toContain('Open risks');
    expect(text).toContain(`${'N'.repeat(997)}...`);
    expect(text).not.toContain('N'.repeat(998));
  });
});

describe('truncate (applyContextBudget) and the budget log', () => {
  const fixedNow = () => Date.UTC(2026, 2, 2, 12, 0, 0);

  it('max_tokens 0 means unlimited: nothing truncated and nothing logged', async () => {
    const lines: unknown[] = [];
    const result = await buildHandoffContext([{ ...phase1, narrative: LONG_NARRATIVE }], manifest([], 5000, 0), { log: async (l) => void lines.push(l) });
    expect(result.budget).toBeNull();
    expect(lines).toEqual([]);
  });

  it('within budget: was_truncated false and truncated_tokens == original_tokens, one log line', async () => {
    const lines: unknown[] = [];
    const result = await buildHandoffContext([phase1], resolveManifest(2), { log: async (l) => void lines.push(l), now: fixedNow, runId: 'abc123' });
    const tokens = Math.ceil(result.text.length / 4);
    expect(result.budget).toEqual({ original_tokens: tokens, budget_tokens: 2500, truncated_tokens: tokens, was_truncated: false });
    expect(lines).toEqual([
      { run_id: 'abc123', phase: 2, original_tokens: tokens, budget_tokens: 2500, truncated_tokens: tokens, was_truncated: false, ts: '2026-03-02T12:00:00.000Z' },
    ]);
  });

  it('over budget: truncated_tokens <= budget_tokens and the log line says so', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const many = Array.from({ length: 40 }, (_, i) => `Decision number ${i} with some explanation. It matters.`);
    const result = await buildHandoffContext([{ phase: 1, goal: 'g', decisions_made: many }], manifest(['goal', 'decisions_made'], 0, 100, 2), {
      log: async (l) => void lines.push(l as Record<string, unknown>),
      runId: 'r',
      now: fixedNow,
      tokenizer: createChars4Tokenizer(),
    });
    expect(result.budget?.was_truncated).toBe(true);
    expect(result.budget?.truncated_tokens).toBeLessThanOrEqual(100);
    expect(Math.ceil(result.text.length / 4)).toBeLessThanOrEqual(100);
    expect(result.text.endsWith('...')).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ run_id: 'r', phase: 2, budget_tokens: 100, was_truncated: true });
    expect(Object.keys(lines[0] ?? {})).toEqual(['run_id', 'phase', 'original_tokens', 'budget_tokens', 'truncated_tokens', 'was_truncated', 'ts']);
  });

  it('invariants hold for any handoffs and budget (property)', async () => {
    const handoff = fc.record(
      {
        goal: fc.string({ maxLength: 80 }),
        epic_id: fc.string({ maxLength: 10 }),
        verdicts: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('PASS', 'WARN', 'FAIL')),
        decisions_made: fc.array(fc.string({ maxLength: 60 }), { maxLength: 5 }),
        open_risks: fc.array(fc.string({ maxLength: 60 }), { maxLength: 5 }),
        artifacts_produced: fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }),
        narrative: fc.lorem({ maxCount: 40, mode: 'sentences' }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(handoff, { maxLength: 3 }), fc.integer({ min: 0, max: 400 }), fc.constantFrom(0, 50, 400), async (handoffs, max, cap) => {
        const m = manifest([], cap, max, 4);
        const result = await buildHandoffContext(handoffs, m);
        const whole = (await buildHandoffContext(handoffs, { ...m, max_tokens: 0 })).text;
        expect(result.text.length).toBeLessThanOrEqual(whole.length);
        if (result.budget) {
          if (result.budget.was_truncated) expect(result.budget.truncated_tokens).toBeLessThanOrEqual(result.budget.budget_tokens);
          else expect(result.budget.truncated_tokens).toBe(result.budget.original_tokens);
        } else {
          expect(result.text).toBe(whole);
        }
      }),
      { numRuns: 60 },
    );
  });
});
