import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../src/security/redact-secrets.js';
import { runCli } from '../helpers/fakes.js';

/**
 * This repository's own fixtures (test/fixtures and the shipped .aiwg/examples) hold no
 * secret, and no output format built from them shows one: the scanner that redacts every
 * output finds nothing in the files nor in any context rendered from them.
 */
const REPO = resolve('.');
const ENV = { AIWG_TOKENIZER: 'chars4', AIWG_SCORING_METHOD: 'keyword' };

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

describe('the repository fixtures carry no secret into any output', () => {
  it('no fixture file holds a secret', async () => {
    const files = [...filesUnder(join(REPO, 'test', 'fixtures')), ...filesUnder(join(REPO, '.aiwg', 'examples'))];
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(await findSecrets(readFileSync(file, 'utf8')), file).toEqual([]);
  });

  it.each(['xml', 'markdown', 'json'])('context-budget over the fixtures, %s: no secret in the context, report or record', async (format) => {
    const root = mkdtempSync(join(tmpdir(), 'aiwg-fixtures-scan-'));
    cpSync(join(REPO, 'test', 'fixtures'), join(root, 'fixtures'), { recursive: true });
    cpSync(join(REPO, '.aiwg', 'examples'), join(root, 'examples'), { recursive: true });
    const out = join(root, 'context.out');
    const run = await runCli(['context-budget', 'summarize the fixtures and handoffs', '--format', format, '--output', out, '--json'], root, ENV);
    expect(run.code, run.stderr).toBe(0);
    const context = readFileSync(out, 'utf8');
    expect(context.length).toBeGreaterThan(1000);
    for (const text of [context, run.stdout, run.stderr]) expect(await findSecrets(text)).toEqual([]);
  });

  it('assemble of the example working set and handoff-context of the example handoffs: no secret', async () => {
    const assembled = await runCli(['assemble', '--working-set', '.aiwg/examples/working-set.yml', '--json', '--no-log'], REPO, ENV);
    expect(assembled.code, assembled.stderr).toBe(0);
    const handoff = await runCli(['handoff-context', '--phase', '3', '--dir', '.aiwg/examples/handoffs', '--json', '--no-log'], REPO, ENV);
    expect(handoff.code, handoff.stderr).toBe(0);
    for (const text of [assembled.stdout, assembled.stderr, handoff.stdout, handoff.stderr]) expect(await findSecrets(text)).toEqual([]);
  });
});
