import { describe, expect, it } from 'vitest';
import { buildStub } from '../../src/summarize/stub.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';

const chars4 = createChars4Tokenizer();

describe('buildStub', () => {
  it('holds path, file type, last modified (UTC) and line count', () => {
    const stub = buildStub({ path: 'src/a.ts', fileType: 'TypeScript', lastModifiedMs: Date.UTC(2026, 2, 4, 5, 6, 7, 890), lineCount: 12 }, chars4, 100);
    expect(stub.content).toBe('path: src/a.ts\ntype: TypeScript\nlast modified: 2026-03-04T05:06:07Z\nlines: 12');
    expect(stub.tokens).toBe(chars4.count(stub.content));
  });

  it('shortens a very long path in the middle to fit the limit', () => {
    const path = `${'deep/'.repeat(100)}file.ts`;
    const stub = buildStub({ path, fileType: 'TypeScript', lastModifiedMs: 0, lineCount: 1 }, chars4, 100);
    expect(stub.tokens).toBeLessThanOrEqual(100);
    expect(stub.content).toMatch(/^path: deep\/deep.*….*file\.ts\ntype: TypeScript\nlast modified: 1970-01-01T00:00:00Z\nlines: 1$/);
  });

  it('an unknown date says so', () => {
    expect(buildStub({ path: 'a', fileType: 'Text', lastModifiedMs: Number.NaN, lineCount: 0 }, chars4, 100).content).toContain('last modified: unknown');
  });

  it('a limit below the smallest stub cuts whole lines', () => {
    const stub = buildStub({ path: 'src/a.ts', fileType: 'TypeScript', lastModifiedMs: 0, lineCount: 3 }, chars4, 16);
    expect(stub.tokens).toBeLessThanOrEqual(16);
    expect(stub.content).toBe('path: src/a.ts\n… 3 more lines cut to fit 16 tokens');
  });
});
