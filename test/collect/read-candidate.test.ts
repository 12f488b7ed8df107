import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CollectFs, FileInfo } from '../../src/collect/collect-ports.js';
import { countLines, mapLimit, readCandidate, type ReadOptions } from '../../src/collect/read-candidate.js';

type Node = { kind: 'file'; bytes: Buffer; growTo?: Buffer } | { kind: 'symlink'; target: string } | { kind: 'dir' } | { kind: 'other' };

/** An in-memory file system under /root; `realpath` follows one level of links. */
function memoryFs(nodes: Record<string, Node>): CollectFs {
  const get = (path: string): Node => {
    const node = nodes[path];
    if (!node) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return node;
  };
  const info = (node: Node): FileInfo => ({ kind: node.kind, size: node.kind === 'file' ? node.bytes.length : 0, mtimeMs: 1234.9 });
  const resolve = (path: string): string => {
    const node = get(path);
    return node.kind === 'symlink' ? node.target : path;
  };
  return {
    lstat: async (path) => info(get(path)),
    stat: async (path) => info(get(resolve(path))),
    realpath: async (path) => resolve(path),
    readFile: async (path) => {
      const node = get(path);
      if (node.kind !== 'file') throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
      return node.growTo ?? node.bytes;
    },
    readdir: async () => [],
  };
}

function options(fs: CollectFs, overrides: Partial<ReadOptions> = {}): ReadOptions {
  return { fs, rootReal: '/root', maxBytes: 100, rules: { includeSecrets: false }, pathCheck: () => undefined, ...overrides };
}

describe('readCandidate', () => {
  const fs = memoryFs({
    '/root/a.ts': { kind: 'file', bytes: Buffer.from('one\ntwo\n') },
    '/root/grows.txt': { kind: 'file', bytes: Buffer.from('small'), growTo: Buffer.alloc(200, 97) },
    '/root/out': { kind: 'symlink', target: '/elsewhere/secret' },
    '/root/up': { kind: 'symlink', target: '/root-sibling/x' },
    '/root/in': { kind: 'symlink', target: '/root/a.ts' },
    '/root/to-env': { kind: 'symlink', target: '/root/.env' },
    '/root/.env': { kind: 'file', bytes: Buffer.from('K=V\n') },
    '/root/sub': { kind: 'dir' },
    '/root/fifo': { kind: 'other' },
  });

  it('reads a file into a candidate', async () => {
    expect(await readCandidate('a.ts', options(fs))).toEqual({
      file: {
        path: 'a.ts',
        content: 'one\ntwo\n',
        size: 8,
        mtimeMs: 1234,
        hash: createHash('sha1').update('blob 8\0one\ntwo\n').digest('hex'),
        lineCount: 2,
      },
    });
  });

  it.each([
    ['out', 'symlink resolves outside the root: not followed'],
    ['up', 'symlink resolves outside the root: not followed'],
    ['sub', 'directory (git submodule or nested repository): not collected'],
    ['fifo', 'not a regular file'],
    ['gone.ts', 'vanished before it could be read (deleted in the working tree?)'],
    ['grows.txt', 'too large: 200 bytes > collect.max_file_bytes 100'],
  ])('excludes %s: %s', async (path, reason) => {
    expect(await readCandidate(path, options(fs))).toEqual({ excluded: { path, reason } });
  });

  it('reports a broken symlink as such', async () => {
    const broken = memoryFs({ '/root/broken': { kind: 'symlink', target: '/root/missing' } });
    const withFailingRealpath: CollectFs = { ...broken, realpath: async () => Promise.reject(Object.assign(new Error('x'), { code: 'ENOENT' })) };
    expect(await readCandidate('broken', options(withFailingRealpath))).toEqual({ excluded: { path: 'broken', reason: 'broken symlink' } });
  });

  it('follows a link inside the root, and re-checks the target path', async () => {
    const result = await readCandidate('in', options(fs));
    expect('file' in result && result.file.content).toBe('one\ntwo\n');
    const checked = await readCandidate('to-env', options(fs, { pathCheck: (p) => (p === '.env' ? 'secret: environment file' : undefined) }));
    expect(checked).toEqual({ excluded: { path: 'to-env', reason: 'symlink to .env: secret: environment file' } });
  });
});

describe('countLines', () => {
  it('counts lines like splitting the decoded text, last line with or without a newline', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'é', '日', '\n', '\r', ' ') }), (text) => {
        const expected = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
        expect(countLines(Buffer.from(text, 'utf8'))).toBe(expected);
      }),
    );
  });
});

describe('mapLimit', () => {
  it('keeps input order and never runs more than the limit at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 5 }), { maxLength: 40 }), fc.integer({ min: 1, max: 8 }), async (delays, limit) => {
        let running = 0;
        let peak = 0;
        const out = await mapLimit(delays, limit, async (d) => {
          running++;
          peak = Math.max(peak, running);
          for (let i = 0; i < d; i++) await Promise.resolve();
          running--;
          return d * 2;
        });
        expect(out).toEqual(delays.map((d) => d * 2));
        expect(peak).toBeLessThanOrEqual(limit);
      }),
    );
  });
});
