import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

describe('aiwg shared', () => {
  it('creates, injects, queries, lists and destroys through the embedded store under .aiwg/shared', async () => {
    const { root } = makeTempDir('aiwg-shared-cli-');
    expect(await runCli(['shared', 'create', 'm1'], root)).toMatchObject({ code: 0, stdout: 'created shared context m1\n' });
    expect(readFileSync(join(root, '.aiwg', 'shared', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect((await runCli(['shared', 'inject', 'm1', 'finding/retry', 'the client retries without backoff', '--strength', '2'], root)).stdout).toBe(
      'injected finding/retry into m1 at sequence 1\n',
    );
    await runCli(['shared', 'inject', 'm1', 'draft', 'my retry plan', '--agent', 'alice'], root);
    expect((await runCli(['shared', 'query', 'm1', 'retry backoff'], root)).stdout).toMatch(/^#1 finding\/retry score \d+\.\d{3}: the client retries without backoff\n$/);
    expect((await runCli(['shared', 'list', 'm1', '--agent', 'alice'], root)).stdout).toBe(
      '#1 finding/retry: the client retries without backoff\n#2 draft [agent alice]: my retry plan\n',
    );
    const json = JSON.parse((await runCli(['shared', 'query', 'm1', 'plan', '--agent', 'alice', '--json'], root)).stdout);
    expect(json.hits.map((h: { key: string }) => h.key)).toEqual(['draft']);
    const conflict = await runCli(['shared', 'inject', 'm1', 'draft', 'v2', '--agent', 'alice', '--expect-sequence', '1'], root);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toBe('aiwg shared: shared context "m1": key "draft" is at sequence 2, not the expected 1: another writer changed it; query again and retry\n');
    expect(await runCli(['shared', 'destroy', 'm1'], root)).toMatchObject({ code: 0, stdout: 'destroyed shared context m1\n' });
    expect(existsSync(join(root, '.aiwg', 'shared', 'default', 'm1.log'))).toBe(false);
  });

  it('honours AIWG_SHARED_CONTEXT and lets --store win over it', async () => {
    const { root } = makeTempDir('aiwg-shared-cli-');
    await runCli(['shared', 'create', 'm1'], root, { AIWG_SHARED_CONTEXT: 'file:elsewhere' });
    expect(existsSync(join(root, 'elsewhere', 'default', 'm1.log'))).toBe(true);
    const other = await runCli(['shared', 'list', 'm1', '--store', 'file:'], root, { AIWG_SHARED_CONTEXT: 'file:elsewhere' });
    expect(other.code).toBe(2);
  });

  it.each([
    [['shared'], /^aiwg shared: give an action: create, inject, query, list, destroy/],
    [['shared', 'explode', 'm1'], /^aiwg shared: give an action/],
    [['shared', 'inject', 'm1', 'k'], /^aiwg shared: inject takes 3 argument\(s\): aiwg shared inject ID KEY CONTENT/],
    [['shared', 'query', 'nope', 'x'], /^aiwg shared: shared context "nope" does not exist: call createContext\("nope"\) first/],
    [['shared', 'create', 'm1', '--ttl-hours', 'soon'], /^aiwg shared: --ttl-hours soon: use a number of hours >= 0/],
    [['shared', 'query', 'm1', 'x', '--limit', '0'], /^aiwg shared: --limit 0: use a positive whole number/],
    [['shared', 'create', 'm1', '--store', 'ftp://host'], /^aiwg shared: shared_context.url: "ftp:\/\/host" is not a shared context store: use memory:, file:\[DIR\]/],
    [['shared', 'create', 'm1', '--store', 'redis://:secret@[bad'], /^aiwg shared: shared_context.url: "redis:\/\/:\*\*\*@\[bad" is not a URL/],
  ])('%j exits 2 with one line', async (argv, message) => {
    const { root } = makeTempDir('aiwg-shared-cli-');
    const result = await runCli(argv, root);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toContain('secret');
  });
});
