import { beforeAll, describe, expect, it } from 'vitest';
import { createChars4Tokenizer, createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import { createFileLevels } from '../../src/summarize/file-levels.js';
import { createSyntaxEngine } from '../../src/summarize/syntax/engine.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { testContext } from '../helpers/fakes.js';
import { candidate, fixtureFiles } from './golden.test.js';

const LIMIT_SETS = [
  { detailed: 2000, summary: 500, stub: 100 },
  { detailed: 60, summary: 30, stub: 20 },
  { detailed: 12, summary: 8, stub: 6 },
];

const tokenizers: Record<string, Tokenizer> = { chars4: createChars4Tokenizer() };
beforeAll(async () => {
  tokenizers.o200k = await createTokenizer('o200k');
});

describe('every level of every fixture holds its token limit, counted exactly', () => {
  const syntax = createSyntaxEngine();
  const cases = fixtureFiles().flatMap((f) => ['o200k', 'chars4'].flatMap((tokenizer) => LIMIT_SETS.map((limits) => ({ ...f, tokenizer, limits }))));
  it.each(cases)('$lang/$name $tokenizer $limits.detailed/$limits.summary/$limits.stub', async ({ lang, name, path, tokenizer, limits }) => {
    const config = ConfigSchema.parse({
      summarization: {
        levels: { detailed: { token_limit: limits.detailed }, summary: { token_limit: limits.summary }, stub: { token_limit: limits.stub } },
      },
    });
    const tk = tokenizers[tokenizer]!;
    const { levels } = await createFileLevels(config, { syntax })(candidate(path, `${lang}/${name}`), Date.UTC(2026, 0, 1), testContext({ config, tokenizer: tk }));
    expect(levels.map((l) => l.level)).toEqual(['full', 'detailed', 'summary', 'stub']);
    const limitOf = { full: -1, detailed: limits.detailed, summary: limits.summary, stub: limits.stub };
    for (const level of levels) {
      expect(level.tokens).toBe(tk.count(level.content));
      if (limitOf[level.level] >= 0) expect(level.tokens).toBeLessThanOrEqual(limitOf[level.level]);
    }
    for (let i = 1; i < levels.length; i++) expect(levels[i]!.tokens).toBeLessThanOrEqual(levels[i - 1]!.tokens);
  });
});
