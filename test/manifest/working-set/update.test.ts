import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, InputError } from '../../../src/errors.js';
import { createJsonlAppender } from '../../../src/manifest/fs-io.js';
import { updateWorkingSetFile } from '../../../src/manifest/working-set/manifest-file.js';
import { parseWorkingSet } from '../../../src/manifest/working-set/schema.js';
import { applyWorkingSetUpdate, type WorkingSetUpdate } from '../../../src/manifest/working-set/update.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';

const MANIFEST = `# Working set for the parser task
protocol: CONTEXT-ASSEMBLY/0.1
budget:
  max_tokens: 28000
  reserved_for_response: 4000 # the answer needs room

files:
  # the task itself
  - path: current_task.md
    priority: 0.95
    role: developer   # trusted below
  - path: src/main.ts
    priority: 0.8
    truncate_strategy: middle
trusted_roles: [developer]
`;

const options = { file: 'working-set.yml', nowIso: '2026-01-15T10:00:00.000Z', by: 'model' as const };

describe('applyWorkingSetUpdate (spec 001 section 6)', () => {
  it('add appends an entry and keeps every comment and the formatting', () => {
    const { text, event } = applyWorkingSetUpdate(
      MANIFEST,
      { action: 'add_to_working_set', path: './docs/parser.md', priority: 0.7, why: 'Found relevant documentation' },
      options,
    );
    // Everything before the new entry is kept, comments and blank lines included; the yaml
    // printer only normalises the spacing before an inline comment.
    expect(text.startsWith(MANIFEST.split('trusted_roles')[0]!.replace('developer   #', 'developer #'))).toBe(true);
    expect(text).toContain('trusted_roles: [developer]\n');
    expect(text).toContain('  - path: docs/parser.md\n    priority: 0.7\n    why: Found relevant documentation\n');
    expect(text).toContain('metadata:\n  last_updated: 2026-01-15T10:00:00.000Z\n  assembled_by: model\n');
    expect(parseWorkingSet(text, 'w').files.map((f) => f.path)).toEqual(['current_task.md', 'src/main.ts', 'docs/parser.md']);
    expect(event).toEqual({
      ts: '2026-01-15T10:00:00.000Z',
      action: 'add_to_working_set',
      path: 'docs/parser.md',
      priority: 0.7,
      why: 'Found relevant documentation',
      by: 'model',
      manifest: 'working-set.yml',
    });
  });

  it('add with a role records it', () => {
    const { text, event } = applyWorkingSetUpdate(MANIFEST, { action: 'add_to_working_set', path: 'q.md', priority: 0.4, role: 'user', why: 'asked' }, options);
    expect(parseWorkingSet(text, 'w').files[2]).toMatchObject({ path: 'q.md', role: 'user', why: 'asked' });
    expect(event.role).toBe('user');
  });

  it('remove deletes only that entry, comments of the others kept', () => {
    const { text, event } = applyWorkingSetUpdate(MANIFEST, { action: 'remove_from_working_set', path: 'src/main.ts', why: 'Task complete' }, options);
    expect(text).not.toContain('src/main.ts');
    expect(text).toContain('# the task itself');
    expect(text).toContain('role: developer # trusted below');
    expect(text).toContain('trusted_roles: [developer]\n');
    expect(event).toMatchObject({ action: 'remove_from_working_set', path: 'src/main.ts', previous_priority: 0.8, why: 'Task complete' });
  });

  it('adjust_priority changes the number in place', () => {
    const { text, event } = applyWorkingSetUpdate(MANIFEST, { action: 'adjust_priority', path: 'src/main.ts', priority: 0.9, why: 'More relevant' }, options);
    expect(text).toContain('  - path: src/main.ts\n    priority: 0.9\n    truncate_strategy: middle\n');
    expect(event).toMatchObject({ action: 'adjust_priority', priority: 0.9, previous_priority: 0.8 });
  });

  it.each<[string, WorkingSetUpdate, RegExp]>([
    ['an empty why', { action: 'adjust_priority', path: 'src/main.ts', priority: 0.9, why: '  ' }, /needs a reason: pass --why/],
    ['adding a path already listed', { action: 'add_to_working_set', path: 'src/./main.ts', priority: 0.1, why: 'x' }, /already in the working set \(files\.1\)/],
    ['adding a path outside the root', { action: 'add_to_working_set', path: '../etc/x', priority: 0.1, why: 'x' }, /outside the root/],
    ['adding an absolute path', { action: 'add_to_working_set', path: '/etc/passwd', priority: 0.1, why: 'x' }, /is absolute/],
    ['removing a path not listed', { action: 'remove_from_working_set', path: 'nope.md', why: 'x' }, /not in the working set/],
    ['re-prioritising a path not listed', { action: 'adjust_priority', path: 'nope.md', priority: 0.5, why: 'x' }, /add it with "aiwg working-set add nope\.md/],
  ])('refuses %s', (_name, update, message) => {
    expect(() => applyWorkingSetUpdate(MANIFEST, update, options)).toThrow(InputError);
    expect(() => applyWorkingSetUpdate(MANIFEST, update, options)).toThrow(message);
  });

  it('refuses an update that would make the manifest invalid (priority out of range)', () => {
    expect(() => applyWorkingSetUpdate(MANIFEST, { action: 'adjust_priority', path: 'src/main.ts', priority: 3, why: 'x' }, options)).toThrow(ConfigError);
  });

  it('keeps a sequence written flush with its key flush', () => {
    const flush = 'protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: 1000\nfiles:\n- path: a.md\n  priority: 1\n';
    const { text } = applyWorkingSetUpdate(flush, { action: 'add_to_working_set', path: 'b.md', priority: 0.5, why: 'x' }, options);
    expect(text).toContain('files:\n- path: a.md\n  priority: 1\n- path: b.md\n  priority: 0.5\n  why: x\n');
  });

  it('add records truncate_strategy and max_lines', () => {
    const { text } = applyWorkingSetUpdate(MANIFEST, { action: 'add_to_working_set', path: 'b.log', priority: 0.3, truncate_strategy: 'start', max_lines: 200, why: 'recent output' }, options);
    expect(parseWorkingSet(text, 'w').files[2]).toMatchObject({ path: 'b.log', truncate_strategy: 'start', max_lines: 200 });
  });

  it('can remove the entry that makes a manifest invalid', () => {
    const broken = `${MANIFEST.replace('trusted_roles', '  - path: ../outside.md\n    priority: 0.1\ntrusted_roles')}`;
    expect(() => parseWorkingSet(broken, 'w')).toThrow(/outside the root/);
    const { text } = applyWorkingSetUpdate(broken, { action: 'remove_from_working_set', path: '../outside.md', why: 'escapes the root' }, options);
    expect(parseWorkingSet(text, 'w').files.map((f) => f.path)).toEqual(['current_task.md', 'src/main.ts']);
  });

  it('creates the files list when the manifest has none', () => {
    const bare = 'protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: 1000\n';
    const { text } = applyWorkingSetUpdate(bare, { action: 'add_to_working_set', path: 'a.md', priority: 1, why: 'start' }, options);
    expect(parseWorkingSet(text, 'w').files.map((f) => f.path)).toEqual(['a.md']);
  });
});

describe('updateWorkingSetFile (write + event log)', () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  it('writes the manifest once and appends one JSON line per update', async () => {
    fixture = makeTempDir();
    fixture.write('working-set.yml', MANIFEST);
    const logPath = join(fixture.root, '.aiwg', 'rag', 'working-set-events.jsonl');
    const run = (updates: WorkingSetUpdate[]) =>
      updateWorkingSetFile({ root: fixture!.root, file: join(fixture!.root, 'working-set.yml'), updates, by: 'user', now: () => Date.UTC(2026, 0, 15), log: createJsonlAppender(logPath) });
    await run([
      { action: 'add_to_working_set', path: 'a.md', priority: 0.5, why: 'one' },
      { action: 'adjust_priority', path: 'a.md', priority: 0.6, why: 'two' },
    ]);
    await run([{ action: 'remove_from_working_set', path: 'a.md', why: 'three' }]);
    const events = readFileSync(logPath, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => [e.action, e.path, e.why, e.manifest, e.by])).toEqual([
      ['add_to_working_set', 'a.md', 'one', 'working-set.yml', 'user'],
      ['adjust_priority', 'a.md', 'two', 'working-set.yml', 'user'],
      ['remove_from_working_set', 'a.md', 'three', 'working-set.yml', 'user'],
    ]);
    expect(events[0]?.ts).toBe('2026-01-15T00:00:00.000Z');
    const text = readFileSync(join(fixture.root, 'working-set.yml'), 'utf8');
    expect(text).toContain('# the answer needs room');
    expect(text).not.toContain('a.md');
  });

  it('writes nothing and logs nothing when one update of a batch fails', async () => {
    fixture = makeTempDir();
    fixture.write('working-set.yml', MANIFEST);
    const lines: unknown[] = [];
    const run = updateWorkingSetFile({
      root: fixture.root,
      file: join(fixture.root, 'working-set.yml'),
      updates: [
        { action: 'add_to_working_set', path: 'a.md', priority: 0.5, why: 'one' },
        { action: 'remove_from_working_set', path: 'zzz.md', why: 'two' },
      ],
      by: 'user',
      now: () => 0,
      log: async (line) => void lines.push(line),
    });
    await expect(run).rejects.toThrow(/zzz\.md is not in the working set/);
    expect(readFileSync(join(fixture.root, 'working-set.yml'), 'utf8')).toBe(MANIFEST);
    expect(lines).toEqual([]);
  });

  it('redoes the edit on the newer version when the manifest changes underneath (optimistic concurrency)', async () => {
    const versions = [MANIFEST, MANIFEST.replace('priority: 0.8', 'priority: 0.85')];
    let reads = 0;
    const written: string[] = [];
    const io = {
      // The first read sees the old text; from the second on, another writer's version.
      read: async () => versions[Math.min(reads++, 1)]!,
      write: async (_file: string, text: string) => void written.push(text),
    };
    const events = await updateWorkingSetFile({
      root: '/r',
      file: '/r/working-set.yml',
      updates: [{ action: 'add_to_working_set', path: 'a.md', priority: 0.5, why: 'x' }],
      by: 'user',
      now: () => 0,
      log: async () => {},
      io,
    });
    expect(events).toHaveLength(1);
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('priority: 0.85');
    expect(written[0]).toContain('path: a.md');
  });

  it('gives up when the manifest keeps changing', async () => {
    let n = 0;
    const io = { read: async () => MANIFEST.replace('0.8', `0.${++n}`), write: async () => {} };
    const run = updateWorkingSetFile({ root: '/r', file: '/r/w.yml', updates: [{ action: 'remove_from_working_set', path: 'src/main.ts', why: 'x' }], by: 'user', now: () => 0, log: async () => {}, io });
    await expect(run).rejects.toThrow(/kept changing while it was being updated \(3 attempts\)/);
  });
});
