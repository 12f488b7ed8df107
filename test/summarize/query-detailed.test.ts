import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { runContextBudget } from '../../src/pipeline.js';
import { createFileLevels } from '../../src/summarize/file-levels.js';
import { createSyntaxEngine } from '../../src/summarize/syntax/engine.js';
import { createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { CandidateFile } from '../../src/types.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';

/** A central module of 40 functions, each with a body of its own: far over the detailed limit at full. */
const NAMES = Array.from({ length: 40 }, (_, i) => `handler_step_${String(i).padStart(2, '0')}`);
const body = (name: string, i: number) =>
  [
    `def ${name}(request, attempts=${i}):`,
    `    """Step ${i} of the request pipeline."""`,
    ...Array.from({ length: 12 }, (_, k) => `    value_${k} = request.headers.get("x-step-${i}-${k}", ${k * i}) + attempts`),
    `    return value_0 + value_11 + ${i}`,
  ].join('\n');
const MODULE = `"""The request pipeline."""\n\n` + NAMES.map(body).join('\n\n\n') + '\n';
const TARGET = NAMES[17]!;
const TARGET_LINE = `    value_5 = request.headers.get("x-step-17-5", 85) + attempts`;

function candidate(path: string, content: string): CandidateFile {
  return { path, content, size: Buffer.byteLength(content), mtimeMs: Date.UTC(2026, 0, 2), hash: createHash('sha256').update(content).digest('hex'), lineCount: content.split('\n').length };
}

let o200k: Tokenizer;
beforeAll(async () => {
  o200k = await createTokenizer('o200k');
});

describe('query-aware detailed level', () => {
  const levelsFor = async (focus?: string[]) => {
    const config = ConfigSchema.parse({});
    const build = createFileLevels(config, { syntax: createSyntaxEngine() });
    const { levels } = await build(candidate('pipeline.py', MODULE), Date.UTC(2026, 0, 2), testContext({ config, tokenizer: o200k }), focus);
    return levels;
  };

  it('shows the definition the task names whole and the others as signatures, within the detailed limit', async () => {
    const [full, detailed] = await levelsFor([TARGET, 'not_defined_here']);
    expect(full!.tokens).toBeGreaterThan(4000);
    expect(detailed!.content).toContain(body(TARGET, 17));
    for (const name of NAMES.filter((n) => n !== TARGET).slice(0, 5)) expect(detailed!.content).toContain(`def ${name}(`);
    expect(detailed!.content).not.toContain('x-step-16-5');
    expect(detailed!.tokens).toBe(o200k.count(detailed!.content));
    expect(detailed!.tokens).toBeLessThanOrEqual(2000);
  });

  it('keeps the task-independent detailed level when no definition matches or no task is given', async () => {
    const plain = await levelsFor();
    expect(plain[1]!.content).not.toContain(TARGET_LINE);
    expect(plain[1]!.content).toContain(`def ${TARGET}(`);
    expect(await levelsFor(['not_defined_here'])).toEqual(plain);
    expect(await levelsFor([])).toEqual(plain);
    // Deterministic: the same focus gives the same text.
    expect(await levelsFor([TARGET])).toEqual(await levelsFor([TARGET]));
  });

  it('shows a named method whole inside its class, whose outline stays', async () => {
    const methods = NAMES.map((name, i) => body(name, i).split('\n').map((l) => `    ${l}`).join('\n')).join('\n\n');
    const source = `class Pipeline:\n    """Steps."""\n\n${methods}\n`;
    const config = ConfigSchema.parse({});
    const build = createFileLevels(config, { syntax: createSyntaxEngine() });
    const { levels } = await build(candidate('cls.py', source), Date.UTC(2026, 0, 2), testContext({ config, tokenizer: o200k }), [TARGET]);
    expect(levels[1]!.content).toContain('class Pipeline:');
    expect(levels[1]!.content).toContain(`    ${TARGET_LINE}`);
    expect(levels[1]!.content).not.toContain('x-step-16-5');
    expect(levels[1]!.tokens).toBeLessThanOrEqual(2000);
  });

  describe('in a run at a tight budget', () => {
    let repo: Fixture;
    let cache: Fixture;
    beforeAll(() => {
      repo = makeFixtureRepo([{ files: { 'src/pipeline.py': MODULE, 'src/util.py': 'def helper():\n    return 1\n', 'README.md': '# Demo\n\nA request pipeline.\n' }, date: '2026-01-02T03:04:05Z' }]);
      cache = makeTempDir();
    });
    afterAll(() => {
      repo.cleanup();
      cache.cleanup();
    });

    it('puts the named function body in the context and the context within budget by an independent count', async () => {
      const maxTokens = 3000;
      const config = ConfigSchema.parse({
        relevance_scoring: { scoring_method: 'keyword' },
        tokenizer: 'o200k',
        cache: { dir: cache.root },
        budget_config: { total_budget: { max_tokens: maxTokens, reserve_for_output: 0, reserve_for_system: 0 } },
      });
      const { rendered, record } = await runContextBudget({ task: `${TARGET}() returns the wrong value for retried requests`, root: repo.root, config });
      const independent = await createTokenizer('o200k');
      expect(independent.count(rendered)).toBeLessThanOrEqual(maxTokens);
      const files = [...record.allocation.primary.files, ...record.allocation.supporting.files];
      expect(files.find((f) => f.path === 'src/pipeline.py')?.level).toBe('detailed');
      expect(rendered).toContain(TARGET_LINE);
      expect(rendered).not.toContain('x-step-16-5');
    });
  });
});
