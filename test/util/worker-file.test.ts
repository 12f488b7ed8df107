import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiledWorkerFile } from '../../src/util/worker-file.js';

describe('compiledWorkerFile', () => {
  it('finds each worker thread module the build compiles, under dist/src from the package root', () => {
    for (const path of ['summarize/syntax/outline-worker.js', 'scoring/semantic/static-embed-worker.js', 'tokenize/bpe-worker.js']) {
      const url = compiledWorkerFile(path);
      expect(url).toBeDefined();
      expect(fileURLToPath(url!).endsWith(`/dist/src/${path}`)).toBe(true);
      expect(existsSync(url!)).toBe(true);
    }
  });

  it('is undefined for a module the build does not have: the caller works without a worker', () => {
    expect(compiledWorkerFile('tokenize/no-such-worker.js')).toBeUndefined();
  });
});
