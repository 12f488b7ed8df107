import { afterEach, describe, expect, it } from 'vitest';
import { planRefresh, readRecordUsage, recordUsageOf, type RecordUsage } from '../../../src/manifest/working-set/refresh.js';
import { validateWorkingSet } from '../../../src/manifest/working-set/schema.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';

const manifest = validateWorkingSet(
  {
    protocol: 'CONTEXT-ASSEMBLY/0.1',
    budget: { max_tokens: 1000 },
    trusted_roles: ['system'],
    files: [
      { path: 'AGENTS.md', priority: 1, role: 'system' },
      { path: 'src/a.ts', priority: 0.5 },
      { path: 'src/b.ts', priority: 0.5 },
      { path: 'src/c.ts', priority: 0.05 },
      { path: 'src/top.ts', priority: 1 },
      { path: 'docs/old.md', priority: 0.3 },
    ],
  },
  'ws.yml',
);

function record(name: string, day: number, paths: string[]): RecordUsage {
  return { name, timeMs: Date.UTC(2026, 0, day), paths: new Set(paths) };
}

// Newest first: r3 (day 3), r2, r1.
const records = [record('r1.json', 1, ['docs/old.md', 'src/c.ts']), record('r3.json', 3, ['src/a.ts']), record('r2.json', 2, ['src/a.ts', 'src/top.ts'])];

describe('planRefresh (orchestrator updates)', () => {
  it('bumps files used in the newest N records by 0.1, capped at 1', () => {
    expect(planRefresh(manifest, records, { bumpRecent: 2 })).toEqual([
      { path: 'src/a.ts', from: 0.5, to: 0.6, kind: 'bump', why: 'used in 2 of the newest 2 budget records' },
    ]);
  });

  it('bump window counts only the newest N records', () => {
    expect(planRefresh(manifest, records, { bumpRecent: 1 }).map((c) => c.path)).toEqual(['src/a.ts']);
    expect(planRefresh(manifest, records, { bumpRecent: 3 }).map((c) => [c.path, c.to])).toEqual([
      ['docs/old.md', 0.4],
      ['src/a.ts', 0.6],
      ['src/c.ts', 0.15],
    ]);
  });

  it('demotes context files unused in the newest N records, never below 0, never instruction files', () => {
    expect(planRefresh(manifest, records, { demoteUnused: 2 })).toEqual([
      { path: 'docs/old.md', from: 0.3, to: 0.2, kind: 'demote', why: 'unused in the last 2 budget records' },
      { path: 'src/b.ts', from: 0.5, to: 0.4, kind: 'demote', why: 'unused in the last 2 budget records' },
      { path: 'src/c.ts', from: 0.05, to: 0, kind: 'demote', why: 'unused in the last 2 budget records' },
    ]);
  });

  it('does not demote before N runs exist', () => {
    expect(planRefresh(manifest, records, { demoteUnused: 4 })).toEqual([]);
  });

  it('bump and demote together: a bumped file is not demoted', () => {
    const changes = planRefresh(manifest, records, { bumpRecent: 1, demoteUnused: 1 });
    expect(changes.map((c) => [c.path, c.kind])).toEqual([
      ['docs/old.md', 'demote'],
      ['src/a.ts', 'bump'],
      ['src/b.ts', 'demote'],
      ['src/c.ts', 'demote'],
      ['src/top.ts', 'demote'],
    ]);
  });
});

describe('reading budget records leniently', () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  it('takes paths from every tier and the timestamp, ignoring the rest', () => {
    const usage = recordUsageOf('x.json', {
      timestamp: '2026-01-02T00:00:00Z',
      allocation: { primary: { files: [{ path: 'a.ts' }] }, supporting: { files: [{ path: 'b.ts' }, { nope: 1 }] }, reference: {}, history: { files: 'bad' } },
      extra: true,
    });
    expect(usage).toEqual({ name: 'x.json', timeMs: Date.UTC(2026, 0, 2), paths: new Set(['a.ts', 'b.ts']) });
  });

  it('a record without timestamp or allocation is old and empty, not an error', () => {
    expect(recordUsageOf('y.json', {})).toEqual({ name: 'y.json', timeMs: 0, paths: new Set() });
  });

  it('skips unparseable files with a warning and reports a missing directory', async () => {
    fixture = makeTempDir();
    fixture.write('records/a.json', JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', allocation: { primary: { files: [{ path: 'x.ts' }] } } }));
    fixture.write('records/b.json', '{ broken');
    fixture.write('records/c.json', '[1, 2]');
    fixture.write('records/notes.txt', 'ignored');
    const { records: read, warnings } = await readRecordUsage(`${fixture.root}/records`);
    expect(read.map((r) => r.name)).toEqual(['a.json']);
    expect(warnings).toEqual([expect.stringMatching(/^skipped budget record b\.json: /), 'skipped budget record c.json: not a JSON object']);
    expect((await readRecordUsage(`${fixture.root}/absent`)).warnings[0]).toMatch(/no budget records in .*absent/);
  });
});
