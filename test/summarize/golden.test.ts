import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';
import { createFileLevels } from '../../src/summarize/file-levels.js';
import { createSyntaxEngine } from '../../src/summarize/syntax/engine.js';
import { defaultConfig } from '../../src/config/schema.js';
import type { CandidateFile } from '../../src/types.js';
import { testContext } from '../helpers/fakes.js';

/**
 * Golden outputs: every fixture under test/fixtures/summarize/<lang>/ has its detailed, summary
 * and stub levels (o200k) checked in next to it as `<file>.expected-<level>.txt`. Regenerate with
 * AIWG_UPDATE_GOLDEN=1 after an intended change, then read the diff.
 */
const FIXTURES = 'test/fixtures/summarize';
const UPDATE = process.env.AIWG_UPDATE_GOLDEN === '1';
const MODIFIED = Date.UTC(2026, 0, 10, 9, 30);

export function fixtureFiles(): Array<{ lang: string; name: string; path: string }> {
  return readdirSync(FIXTURES)
    .sort()
    .flatMap((lang) =>
      readdirSync(`${FIXTURES}/${lang}`)
        .filter((name) => !name.includes('.expected-'))
        .sort()
        .map((name) => ({ lang, name, path: `${FIXTURES}/${lang}/${name}` })),
    );
}

export function candidate(path: string, relPath: string): CandidateFile {
  const bytes = readFileSync(path);
  const content = bytes.toString('utf8');
  return {
    path: relPath,
    content,
    size: bytes.length,
    mtimeMs: MODIFIED,
    hash: createHash('sha256').update(bytes).digest('hex'),
    lineCount: content.endsWith('\n') ? content.split('\n').length - 1 : content.split('\n').length,
  };
}

let o200k: Tokenizer;
beforeAll(async () => {
  o200k = await createTokenizer('o200k');
});

describe('golden levels per fixture (o200k)', () => {
  const build = createFileLevels(defaultConfig(), { syntax: createSyntaxEngine() });
  it.each(fixtureFiles())('$lang/$name', async ({ lang, name, path }) => {
    const ctx = testContext({ tokenizer: o200k });
    const { levels } = await build(candidate(path, `${lang}/${name}`), MODIFIED, ctx);
    for (const level of levels.slice(1)) {
      const expectedPath = `${path}.expected-${level.level}.txt`;
      if (UPDATE || !existsSync(expectedPath)) writeFileSync(expectedPath, `${level.content}\n`);
      expect(`${level.content}\n`, expectedPath).toBe(readFileSync(expectedPath, 'utf8'));
      expect(level.tokens).toBe(o200k.count(level.content));
    }
    expect(ctx.warnings).toEqual([]);
  });
});
