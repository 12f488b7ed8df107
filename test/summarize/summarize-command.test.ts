import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';

const SOURCE = `/** Parses durations like "5m". */\nexport function parseDuration(text: string): number {\n  const n = Number(text.slice(0, -1));\n  const unit = text.at(-1);\n  return unit === 'm' ? n * 60 : n;\n}\n\nexport const SECOND = 1;\n`;

function repo() {
  const root = mkdtempSync(join(tmpdir(), 'aiwg-summarize-cli-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'duration.ts'), SOURCE);
  return root;
}

/** chars4 keeps these CLI tests fast; the tokenizers have their own tests. */
const run = (argv: string[], cwd: string, env: Record<string, string> = {}) => runCli(argv, cwd, { AIWG_TOKENIZER: 'chars4', ...env });

describe('aiwg summarize', () => {
  it('--json gives exactly {path, level, tokens, content, cached}, and the second run is cached', async () => {
    const root = repo();
    const first = await run(['summarize', 'src/duration.ts', '--level', 'detailed', '--json'], root);
    expect(first.code).toBe(0);
    const json = JSON.parse(first.stdout);
    expect(Object.keys(json)).toEqual(['path', 'level', 'tokens', 'content', 'cached']);
    expect(json).toMatchObject({ path: 'src/duration.ts', level: 'detailed', cached: false });
    expect(json.content).toContain('export function parseDuration(text: string): number { … }');
    expect(json.tokens).toBe(Math.ceil(json.content.length / 4));
    const second = JSON.parse((await run(['summarize', 'src/duration.ts', '--level', 'detailed', '--json'], root)).stdout);
    expect(second).toEqual({ ...json, cached: true });
  });

  it('prints the level with its token count and origin', async () => {
    const root = repo();
    const { code, stdout } = await run(['summarize', 'src/duration.ts', '--level', 'stub', '--root', root], '/');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^src\/duration\.ts \[stub\] \d+ tokens \(chars4\), computed\n\npath: src\/duration\.ts\ntype: TypeScript\nlast modified: .*\nlines: 8\n$/);
  });

  it('defaults to the summary level; --no-cache never caches', async () => {
    const root = repo();
    for (let i = 0; i < 2; i++) {
      const json = JSON.parse((await run(['summarize', 'src/duration.ts', '--no-cache', '--json'], root)).stdout);
      expect(json).toMatchObject({ level: 'summary', cached: false });
      expect(json.tokens).toBeLessThanOrEqual(500);
    }
    // nothing written under the cache directory, the outline blocks' store included
    expect(existsSync(join(root, '.aiwg'))).toBe(false);
  });

  it('keeps the outline blocks it parsed for the next run, as context-budget does', async () => {
    const root = repo();
    // long enough to be cut into top-level blocks (a short file is parsed whole and not kept)
    const body = Array.from({ length: 12 }, (_, i) => `  const step${i} = n * ${i};`).join('\n');
    writeFileSync(join(root, 'src', 'steps.ts'), ['a', 'b', 'c', 'd'].map((name) => `export function ${name}(n: number): number {\n${body}\n  return n;\n}\n`).join('\n'));
    expect((await run(['summarize', 'src/steps.ts', '--level', 'detailed'], root)).code).toBe(0);
    expect(existsSync(join(root, '.aiwg', 'rag', 'index', 'outline-blocks.bin'))).toBe(true);
  });

  it.each([
    [['summarize', '../outside.ts'], 'outside the root', 2],
    [['summarize', 'src/missing.ts'], 'no such file', 2],
    [['summarize', 'src/duration.ts', '--level', 'tiny'], '--level tiny: use one of full, detailed, summary, stub', 2],
    [['summarize'], 'give exactly one file', 2],
    [['summarize', 'src/duration.ts', '--cache', '--no-cache'], 'contradict', 2],
  ])('%j fails with a clear error', async (argv, message, exitCode) => {
    const root = repo();
    writeFileSync(join(root, '..', 'outside.ts'), 'x');
    const { code, stderr } = await run(argv, root);
    expect(code).toBe(exitCode);
    expect(stderr).toContain(message);
  });

  it('a symlink pointing outside the root is refused', async () => {
    const root = repo();
    const elsewhere = mkdtempSync(join(tmpdir(), 'aiwg-elsewhere-'));
    writeFileSync(join(elsewhere, 'secret.ts'), 'export const key = 1;\n');
    symlinkSync(join(elsewhere, 'secret.ts'), join(root, 'src', 'link.ts'));
    const { code, stderr } = await run(['summarize', 'src/link.ts'], root);
    expect(code).toBe(2);
    expect(stderr).toContain('outside the root');
  });
});
