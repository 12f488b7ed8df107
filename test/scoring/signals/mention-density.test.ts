import { describe, expect, it } from 'vitest';
import { mentionDensitySignal, MENTION_FLOOR, MENTION_SATURATION_K, MENTION_WEIGHTS } from '../../../src/scoring/signals/mention-density.js';
import { findAtReferences, resolveReference, buildPathIndex } from '../../../src/scoring/references.js';
import { testContext } from '../../helpers/fakes.js';
import { candidates, signalInput } from '../helpers.js';
import { createDerivedStore } from '../../../src/scoring/derived.js';

const curve = (w: number) => MENTION_FLOOR + (1 - MENTION_FLOOR) * (1 - Math.exp(-w / MENTION_SATURATION_K));

const files = candidates({
  'src/auth/oauth.ts': 'see @src/auth/oauth.ts (self mentions do not count) and @src/auth/token.ts',
  'src/auth/token.ts': 'export const token = 1;',
  'src/a/index.ts': '',
  'src/b/index.ts': '',
  'src/unique-name.ts': '',
  'AGENTS.md': 'Always read @src/auth/token.ts and @unique-name.ts first. Ask admin@example.com.',
  '.aiwg/requirements/UC-003.md': 'Implements @src/auth/oauth.ts; @index.ts is ambiguous; @../secrets.txt is outside; @/etc/passwd too',
  'docs/guide.md': 'The @src/auth/ folder holds the login code.',
});

async function score(task: string) {
  const result = await mentionDensitySignal.score(signalInput(files, { task }), testContext(), {});
  return (path: string) => result.get(path);
}

describe('mention density', () => {
  it.each([
    // path, raw weight
    ['src/auth/token.ts', MENTION_WEIGHTS.other * 1 + MENTION_WEIGHTS.artifact * 1 + MENTION_WEIGHTS.other * 0.25],
    ['src/auth/oauth.ts', MENTION_WEIGHTS.task + MENTION_WEIGHTS.artifact + MENTION_WEIGHTS.other * 0.25],
    ['src/unique-name.ts', MENTION_WEIGHTS.artifact],
    ['src/a/index.ts', 0],
    ['docs/guide.md', 0],
  ])('%s gets weight %s', async (path, weight) => {
    const get = await score('Add PKCE to @src/auth/oauth.ts');
    expect(get(path)?.raw).toBeCloseTo(weight, 6);
    expect(get(path)?.score).toBeCloseTo(curve(weight), 6);
  });

  it('task mentions weigh most', async () => {
    const get = await score('look at @src/b/index.ts');
    const byTask = get('src/b/index.ts')?.score ?? 0;
    const byArtifact = get('src/unique-name.ts')?.score ?? 0;
    expect(byTask).toBeGreaterThan(byArtifact);
  });

  it('a warm index scores a task without @-mentions from what the files say, once per file set', async () => {
    const derived = createDerivedStore().forFiles(files);
    const run = async (task: string) => mentionDensitySignal.score({ ...signalInput(files, { task }), derived }, testContext(), {});
    const first = await run('fix the token refresh');
    expect(await run('another task')).toBe(first);
    const mentioning = await run('look at @src/b/index.ts');
    expect(mentioning).not.toBe(first);
    expect(mentioning.get('src/b/index.ts')?.score).toBeGreaterThan(first.get('src/b/index.ts')?.score as number);
    expect(await run('a third task')).toBe(first);
    // the same paths scored anew: nothing in them mentions anything
    const changed = candidates({ ...Object.fromEntries(files.map((f) => [f.path, ''])) });
    const again = await mentionDensitySignal.score({ ...signalInput(changed, { task: 'another task' }), derived: createDerivedStore().forFiles(changed) }, testContext(), {});
    expect(again.get('src/auth/token.ts')?.score).toBe(MENTION_FLOOR);
  });

  it('saturates below 1 and is monotone', () => {
    const values = [0, 0.5, 1, 2, 4, 8, 100].map(curve);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
    expect(curve(100)).toBeLessThanOrEqual(1);
    expect(curve(0)).toBe(MENTION_FLOOR);
  });
});

describe('@-reference parsing and resolution', () => {
  it.each([
    ['see @src/a.ts, then @b.md.', ['src/a.ts', 'b.md.']],
    ['mail admin@example.com', []],
    ['`@src/x.ts:12` and (@y.ts)', ['src/x.ts', 'y.ts']],
    ['no at sign here', []],
  ])('%s -> %j', (text, expected) => {
    expect(findAtReferences(text)).toEqual(expected);
  });

  const index = buildPathIndex(files.map((f) => f.path));
  it.each([
    ['src/auth/token.ts', 'file'],
    ['./src/auth/token.ts', 'file'],
    ['src/auth/token.ts:12', 'file'],
    ['auth/token.ts', 'file'],
    ['index.ts', 'ambiguous'],
    ['src/auth/', 'directory'],
    ['../secrets.txt', 'outside'],
    ['src/../../secrets.txt', 'outside'],
    ['/etc/passwd', 'outside'],
    ['nothing.ts', 'none'],
  ])('%s resolves as %s', (ref, kind) => {
    expect(resolveReference(ref, index).kind).toBe(kind);
  });
});
