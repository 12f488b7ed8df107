import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeRecord, recordFileName } from '../../src/record/write-record.js';
import { readRecords } from '../../src/record/read-records.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { makeRecord, recordFile } from './record-fixtures.js';

const RECORDS = '.aiwg/rag/budget-records';
const LOG = '.aiwg/rag/context-budget-log.jsonl';

describe('writeRecord', () => {
  let dir: Fixture;
  beforeEach(() => {
    dir = makeTempDir('aiwg-records-');
  });
  afterEach(() => dir.cleanup());

  it('writes the validated record and appends one log line with spec 000 fields', async () => {
    const record = makeRecord({
      runId: 'run-1',
      timestamp: '2026-01-15T10:20:30.000Z',
      rendered: 4200,
      requested: 9000,
      overflow: 'summarize',
      files: { primary: [recordFile('src/a.ts', 'full', 4000)] },
    });
    const { recordPath } = await writeRecord(record, { root: dir.root });
    expect(recordPath).toBe(join(dir.root, RECORDS, '2026-01-15T10-20-30.000Z-run-1.json'));
    expect(JSON.parse(readFileSync(recordPath, 'utf8'))).toEqual(record);
    expect(readdirSync(join(dir.root, RECORDS))).toEqual(['2026-01-15T10-20-30.000Z-run-1.json']);
    const lines = readFileSync(join(dir.root, LOG), 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(JSON.parse(lines[0] as string)).toEqual({
      run_id: 'run-1',
      phase: null,
      original_tokens: 9000,
      budget_tokens: 10000,
      truncated_tokens: 4000,
      was_truncated: true,
      ts: '2026-01-15T10:20:30.000Z',
      task: 'task of run-1',
      utilization: 0.42,
    });
  });

  it('appends to the log on every run and keeps the records readable', async () => {
    await writeRecord(makeRecord({ runId: 'a', timestamp: '2026-01-15T10:00:00.000Z', rendered: 1 }), { root: dir.root });
    await writeRecord(makeRecord({ runId: 'b', timestamp: '2026-01-15T11:00:00.000Z', rendered: 2 }), { root: dir.root });
    const lines = readFileSync(join(dir.root, LOG), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).run_id)).toEqual(['a', 'b']);
    expect((await readRecords(dir.root)).records.map((r) => r.run_id)).toEqual(['a', 'b']);
  });

  it('refuses an invalid record and leaves nothing on disk', async () => {
    const valid = makeRecord({ runId: 'bad', timestamp: '2026-01-15T10:00:00.000Z', rendered: 1, files: { primary: [recordFile('a.ts', 'full', 5)] } });
    const record = { ...valid, allocation: { ...valid.allocation, primary: { ...valid.allocation.primary, files: [{ ...recordFile('a.ts', 'full', 5), tokens: 2.5 }] } } };
    await expect(writeRecord(record, { root: dir.root })).rejects.toMatchObject({
      code: 'E_RECORD',
      message: expect.stringMatching(/^budget record does not match schemas\/budget-record\.schema\.json at allocation\.primary\.files\.0\.tokens: .*int.*nothing was written$/i),
    });
    expect(existsSync(join(dir.root, '.aiwg'))).toBe(false);
  });

  it('removes the record again when the log cannot be appended', async () => {
    mkdirSync(join(dir.root, LOG), { recursive: true });
    const record = makeRecord({ runId: 'x', timestamp: '2026-01-15T10:00:00.000Z', rendered: 1 });
    await expect(writeRecord(record, { root: dir.root })).rejects.toMatchObject({ code: 'E_RECORD_IO', message: expect.stringContaining('EISDIR') });
    expect(readdirSync(join(dir.root, RECORDS))).toEqual([]);
  });

  it('names records so that they sort by time and carry only safe characters', () => {
    expect(recordFileName({ timestamp: '2026-01-15T10:00:00.000Z', run_id: '../../etc/passwd x' })).toBe('2026-01-15T10-00-00.000Z-.._.._etc_passwd_x.json');
  });
});

describe('readRecords', () => {
  let dir: Fixture;
  beforeEach(async () => {
    dir = makeTempDir('aiwg-read-');
    for (const [runId, timestamp] of [
      ['aaa111', '2026-01-10T08:00:00.000Z'],
      ['bbb222', '2026-01-12T08:00:00.000Z'],
      ['ccc333', '2026-01-14T08:00:00.000Z'],
      ['ccc444', '2026-01-16T08:00:00.000Z'],
    ] as const) {
      await writeRecord(makeRecord({ runId, timestamp, rendered: 100 }), { root: dir.root });
    }
  });
  afterEach(() => dir.cleanup());

  it('reads every record oldest first', async () => {
    const { records, skipped } = await readRecords(dir.root);
    expect(records.map((r) => r.run_id)).toEqual(['aaa111', 'bbb222', 'ccc333', 'ccc444']);
    expect(skipped).toEqual([]);
  });

  it('skips corrupt and foreign files with a reason, and ignores temp files', async () => {
    const recordsDir = join(dir.root, RECORDS);
    writeFileSync(join(recordsDir, '2026-01-13T08-00-00.000Z-broken.json'), '{"version": "1.0.0", "run_');
    writeFileSync(join(recordsDir, 'notes.json'), JSON.stringify({ version: '0.9.0' }));
    writeFileSync(join(recordsDir, '2026-01-13T09-00-00.000Z-tmp.json.123.abcd.tmp'), 'partial');
    const { records, skipped } = await readRecords(dir.root);
    expect(records).toHaveLength(4);
    expect(skipped).toEqual([
      { path: `${RECORDS}/2026-01-13T08-00-00.000Z-broken.json`, reason: expect.stringMatching(/^not valid JSON \(/) },
      { path: `${RECORDS}/notes.json`, reason: expect.stringMatching(/^not a budget record of this version: version: /) },
    ]);
  });

  it.each([
    [{ last: 2 }, ['ccc333', 'ccc444']],
    [{ since: new Date('2026-01-12T08:00:00.000Z') }, ['bbb222', 'ccc333', 'ccc444']],
    [{ session: 'ccc' }, ['ccc333', 'ccc444']],
    [{ session: 'bbb222' }, ['bbb222']],
    [{ session: 'ccc', last: 1 }, ['ccc444']],
    [{ since: new Date('2026-02-01T00:00:00Z') }, []],
  ])('filters with %o', async (options, expected) => {
    expect((await readRecords(dir.root, options)).records.map((r) => r.run_id)).toEqual(expected);
  });

  it('returns nothing when no record was ever written', async () => {
    const empty = makeTempDir('aiwg-empty-');
    try {
      expect(await readRecords(empty.root)).toEqual({ records: [], skipped: [] });
    } finally {
      empty.cleanup();
    }
  });
});
