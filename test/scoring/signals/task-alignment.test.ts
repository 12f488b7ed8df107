import { describe, expect, it } from 'vitest';
import { createTaskAlignmentSignal } from '../../../src/scoring/signals/task-alignment.js';
import { testContext } from '../../helpers/fakes.js';
import { candidates, signalInput } from '../helpers.js';

const files = candidates({
  'src/http/client.ts': 'export class HttpClient { retryLoop() {} }',
  'src/db/pool.ts': 'export class ConnectionPool { acquire() {} }',
  'src/util/strings.ts': 'export function pad(s) { return s; }',
});
const task = 'the http client retry loop gives up too early';

describe('task_alignment signal', () => {
  it('keyword: BM25 best match is 1, with an explanation', async () => {
    const ctx = testContext();
    ctx.config.relevance_scoring.scoring_method = 'keyword';
    const result = await createTaskAlignmentSignal().score(signalInput(files, { task }), ctx, {});
    expect(result.get('src/http/client.ts')?.score).toBe(1);
    expect(result.get('src/http/client.ts')?.detail).toMatch(/^bm25 \d+\.\d+ \(rank 1\/1\)$/);
    expect(result.get('src/db/pool.ts')?.score).toBe(0);
    expect(ctx.warnings).toEqual([]);
  });

  it('hybrid without an embedder falls back to keyword and warns', async () => {
    const ctx = testContext();
    const result = await createTaskAlignmentSignal({ semantic: null }).score(signalInput(files, { task }), ctx, {});
    expect(result.get('src/http/client.ts')?.score).toBe(1);
    expect(ctx.warnings).toEqual([expect.stringContaining('fell back to keyword')]);
  });

  it('hybrid fuses a semantic score map and reports the model', async () => {
    const ctx = testContext();
    const outcome = { modelId: null as string | null };
    const semantic = async () => ({
      modelId: 'test/model@1',
      scores: new Map([['src/http/client.ts', 0.5], ['src/db/pool.ts', 0.9], ['src/util/strings.ts', 0.4]]),
    });
    const result = await createTaskAlignmentSignal({ semantic, outcome }).score(signalInput(files, { task }), ctx, {});
    expect(outcome.modelId).toBe('test/model@1');
    // keyword says client, semantic says pool: both land in the middle, neither is unrelated
    const client = result.get('src/http/client.ts')?.score ?? 0;
    const pool = result.get('src/db/pool.ts')?.score ?? 0;
    expect(client).toBeGreaterThan(0.2);
    expect(pool).toBeGreaterThan(0.2);
    expect(result.get('src/util/strings.ts')?.score).toBe(0);
    expect(result.get('src/db/pool.ts')?.detail).toContain('semantic 0.900');
  });

  it('a file only the semantic side likes stays below a keyword-and-semantic match (fused floor)', async () => {
    const ctx = testContext();
    const semantic = async () => ({
      modelId: 'test/model@1',
      scores: new Map([['src/http/client.ts', 0.1], ['src/db/pool.ts', 0.1], ['src/util/strings.ts', 0.9]]),
    });
    const unrelated = 'configure kubernetes ingress certificates for staging';
    const result = await createTaskAlignmentSignal({ semantic }).score(signalInput(files, { task: unrelated }), ctx, {});
    expect(result.get('src/util/strings.ts')?.score).toBeGreaterThan(0);
    expect(result.get('src/util/strings.ts')?.score).toBeLessThan(0.5);
  });

  it('a failing semantic side degrades to keyword with a warning', async () => {
    const ctx = testContext();
    const semantic = async () => {
      throw new Error('corrupt vector');
    };
    const result = await createTaskAlignmentSignal({ semantic }).score(signalInput(files, { task }), ctx, {});
    expect(result.get('src/http/client.ts')?.score).toBe(1);
    expect(ctx.warnings).toEqual([expect.stringContaining('corrupt vector')]);
  });

  it('an exact file name in the task ranks that file first', async () => {
    const ctx = testContext();
    ctx.config.relevance_scoring.scoring_method = 'keyword';
    const result = await createTaskAlignmentSignal().score(signalInput(files, { task: `${task}; the fix belongs in strings.ts` }), ctx, {});
    expect(result.get('src/util/strings.ts')?.score).toBe(1);
    expect(result.get('src/http/client.ts')?.score).toBeLessThan(1);
  });
});
