import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command.js';
import { parseWorkingSet } from '../../src/manifest/working-set/schema.js';
import { createTokenizer } from '../../src/tokenize/tokenizer.js';
import { makeTempDir, type Fixture } from '../helpers/fixture-repo.js';

const REPO = join(import.meta.dirname, '../..');
const EXAMPLE = join(REPO, '.aiwg/examples/working-set.yml');
const HANDOFFS = join(REPO, '.aiwg/examples/handoffs');

function fakeIo(cwd: string): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    env: {},
    cwd,
    isTTY: false,
    out: () => out,
    err: () => err,
  };
}

describe('aiwg assemble (example working set of this repository)', () => {
  it('prints the context on stdout and the report on stderr, within the effective budget', async () => {
    const io = fakeIo(REPO);
    const code = await runMain(['assemble', '--working-set', '.aiwg/examples/working-set.yml', '--no-levels', '--no-log'], io);
    expect(code).toBe(0);
    const context = io.out();
    expect(context.startsWith(`Root: ${REPO}\nWorking set: .aiwg/examples/working-set.yml (CONTEXT-ASSEMBLY/0.1)\n`)).toBe(true);
    expect(context).toMatch(/^Constitution: ARCHITECTURE\.md \(checksum: sha256:[0-9a-f]{12}\)$/m);
    expect(context).toContain('<system path="ARCHITECTURE.md">');
    expect(context).toMatch(/<context path="src\/manifest\/working-set\/assemble\.ts"( level="\w+")?( truncated="true")?>/);
    const tokens = (await createTokenizer('o200k')).count(context);
    expect(tokens).toBeLessThanOrEqual(6000);
    const report = io.err();
    expect(report).toMatch(/^assembly_report:\n {2}budget:\n {4}max: 8000\n {4}effective: 6000\n {4}reserved_for_response: 2000\n {4}used: (\d+)\n/);
    expect(report).toContain(`used: ${tokens}\n`);
    expect(report).toContain('- path: notes/not-written-yet.md\n      reason: not found');
  });

  it('--json prints one JSON object {context, report}', async () => {
    const io = fakeIo(REPO);
    expect(await runMain(['assemble', '--working-set', EXAMPLE, '--json', '--format', 'markdown', '--tokenizer', 'chars4', '--no-levels', '--no-log'], io)).toBe(0);
    const parsed = JSON.parse(io.out()) as { context: string; report: { budget: { used: number; effective: number }; tokenizer: string; excluded: Array<{ path: string }> } };
    expect(parsed.report.tokenizer).toBe('chars4');
    expect(parsed.context.startsWith('# Boot header\n')).toBe(true);
    expect(parsed.report.budget.used).toBe(Math.ceil(parsed.context.length / 4));
    expect(parsed.report.budget.used).toBeLessThanOrEqual(parsed.report.budget.effective);
    expect(parsed.report.excluded.map((e) => e.path)).toContain('notes/not-written-yet.md');
    expect(io.err()).toBe('');
  });

  it.each([
    [['assemble', '--working-set', 'nope.yml'], /cannot read working set .*nope\.yml/],
    [['assemble', '--format', 'html', '--working-set', EXAMPLE], /--format "html" is not a format/],
    [['assemble', '--tokenizer', 'bpe', '--working-set', EXAMPLE], /--tokenizer "bpe" is not valid/],
  ])('%j fails with exit 2 and a clear message', async (argv, message) => {
    const io = fakeIo(REPO);
    expect(await runMain(argv, io)).toBe(2);
    expect(io.err()).toMatch(message);
  });

  it('logs what was included as an "assembled" line of the working-set event log', async () => {
    const fixture = makeTempDir();
    try {
      fixture.write('working-set.yml', 'protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: 1000\nfiles:\n  - path: a.md\n    priority: 1\n  - path: gone.md\n    priority: 0.5\n');
      fixture.write('a.md', '# A\n');
      const io = fakeIo(fixture.root);
      expect(await runMain(['assemble', '--tokenizer', 'chars4'], io)).toBe(0);
      const [line, ...rest] = readFileSync(join(fixture.root, '.aiwg/rag/working-set-events.jsonl'), 'utf8').trimEnd().split('\n');
      expect(rest).toEqual([]);
      expect(JSON.parse(line!)).toMatchObject({
        action: 'assembled',
        manifest: 'working-set.yml',
        tokenizer: 'chars4',
        effective: 1000,
        included: [{ path: 'a.md', tokens: 1, level: 'full', truncated: false }],
        excluded: [{ path: 'gone.md', reason: 'not found' }],
      });
    } finally {
      fixture.cleanup();
    }
  });

  it('a manifest with a bad key fails with exit 2 naming the file and key', async () => {
    const fixture = makeTempDir();
    try {
      fixture.write('working-set.yml', 'protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: 100\nfiles:\n  - path: a.md\n    priority: 1\n    role: root\n');
      const io = fakeIo(fixture.root);
      expect(await runMain(['assemble'], io)).toBe(2);
      expect(io.err()).toMatch(/working-set\.yml: files\.0\.role: got "root": use one of "system", "developer", "user", "context"/);
    } finally {
      fixture.cleanup();
    }
  });
});

describe('aiwg working-set', () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  function setup(): Fixture {
    const f = makeTempDir();
    copyFileSync(EXAMPLE, join(f.root, 'working-set.yml'));
    f.write('docs/new.md', '# New\n');
    f.write('src/a.ts', 'export {};\n');
    return f;
  }

  it('add / priority / remove edit the manifest in place and log each update with its why', async () => {
    fixture = setup();
    const io = fakeIo(fixture.root);
    expect(await runMain(['working-set', 'add', 'docs/new.md', '--priority', '0.6', '--why', 'Found relevant documentation', '--by', 'model'], io)).toBe(0);
    expect(await runMain(['working-set', 'priority', 'docs/new.md', '--priority', '0.9', '--why', 'More relevant than thought'], io)).toBe(0);
    expect(await runMain(['working-set', 'remove', 'notes/not-written-yet.md', '--why', 'Not needed'], io)).toBe(0);
    expect(io.out()).toBe(
      [
        'added docs/new.md (priority 0.6) to working-set.yml: Found relevant documentation',
        'docs/new.md: priority 0.6 -> 0.9 in working-set.yml: More relevant than thought',
        'removed notes/not-written-yet.md from working-set.yml: Not needed',
        '',
      ].join('\n'),
    );
    const text = readFileSync(join(fixture.root, 'working-set.yml'), 'utf8');
    expect(text).toContain('# The constitution: always first, whole or not at all.');
    const manifest = parseWorkingSet(text, 'w');
    expect(manifest.files.find((f) => f.path === 'docs/new.md')?.priority).toBe(0.9);
    expect(manifest.files.some((f) => f.path === 'notes/not-written-yet.md')).toBe(false);
    const log = readFileSync(join(fixture.root, '.aiwg/rag/working-set-events.jsonl'), 'utf8').trimEnd().split('\n');
    expect(log.map((line) => (JSON.parse(line) as { action: string; by: string }).action)).toEqual([
      'add_to_working_set',
      'adjust_priority',
      'remove_from_working_set',
    ]);
    expect(JSON.parse(log[0]!)).toMatchObject({ path: 'docs/new.md', priority: 0.6, why: 'Found relevant documentation', by: 'model', manifest: 'working-set.yml' });
  });

  it.each([
    [['working-set', 'add', 'src/a.ts'], /--why "\.\.\." is required/],
    [['working-set', 'add', '../outside.md', '--why', 'x'], /is outside the root/],
    [['working-set', 'add', '/etc/passwd', '--why', 'x'], /is outside the root/],
    [['working-set', 'priority', 'src/a.ts', '--why', 'x'], /--priority N is required/],
    [['working-set', 'priority', 'ARCHITECTURE.md', '--priority', '2', '--why', 'x'], /--priority "2" is not a number from 0\.0 to 1\.0/],
    [['working-set', 'add', 'src/a.ts', '--role', 'root', '--why', 'x'], /--role "root" is not a role/],
    [['working-set', 'add', 'src/a.ts', '--max-lines', '0', '--why', 'x'], /--max-lines "0" is not a whole number of lines >= 1/],
    [['working-set', 'add', 'src/a.ts', '--truncate-strategy', 'tail', '--why', 'x'], /--truncate-strategy "tail" is not valid: use one of never, start, middle, end/],
    [['working-set', 'refresh', '--bump-recent', 'two'], /--bump-recent "two" is not a whole number of budget records/],
    [['working-set', 'frobnicate'], /expected a subcommand \(add, remove, priority, refresh, tool-output\)/],
    [['working-set', 'refresh'], /refresh needs --bump-recent N and\/or --demote-unused N/],
  ])('%j is refused with exit 2', async (argv, message) => {
    fixture = setup();
    const io = fakeIo(fixture.root);
    expect(await runMain(argv, io)).toBe(2);
    expect(io.err()).toMatch(message);
  });

  it('refuses a symlink leading outside the root', async () => {
    fixture = setup();
    const outside = makeTempDir();
    try {
      outside.write('secret.md', 'x');
      const { symlinkSync } = await import('node:fs');
      symlinkSync(join(outside.root, 'secret.md'), join(fixture.root, 'link.md'));
      const io = fakeIo(fixture.root);
      expect(await runMain(['working-set', 'add', 'link.md', '--why', 'x'], io)).toBe(2);
      expect(io.err()).toMatch(/"link\.md" is a symlink leading outside the root/);
    } finally {
      outside.cleanup();
    }
  });

  it('refresh bumps files of recent budget records and demotes unused ones', async () => {
    fixture = setup();
    const records = join(fixture.root, '.aiwg/rag/budget-records');
    mkdirSync(records, { recursive: true });
    const rec = (ts: string, paths: string[]) => JSON.stringify({ timestamp: ts, allocation: { primary: { files: paths.map((path) => ({ path })) } } });
    writeFileSync(join(records, 'a.json'), rec('2026-01-01T00:00:00Z', ['src/tokenize/truncate.ts']));
    writeFileSync(join(records, 'b.json'), rec('2026-01-02T00:00:00Z', ['src/manifest/working-set/schema.ts']));
    writeFileSync(join(records, 'broken.json'), '{');
    const io = fakeIo(fixture.root);
    expect(await runMain(['working-set', 'refresh', '--bump-recent', '1', '--demote-unused', '2'], io)).toBe(0);
    expect(io.err()).toMatch(/warning: skipped budget record broken\.json/);
    const manifest = parseWorkingSet(readFileSync(join(fixture.root, 'working-set.yml'), 'utf8'), 'w');
    const priority = (path: string) => manifest.files.find((f) => f.path === path)?.priority;
    expect(priority('src/manifest/working-set/schema.ts')).toBe(0.6);
    expect(priority('src/manifest/working-set/assemble.ts')).toBe(0.8);
    expect(priority('docs/working-sets.md')).toBe(0.2);
    expect(priority('src/tokenize/truncate.ts')).toBe(0.7);
    expect(priority('ARCHITECTURE.md')).toBe(1);
    expect(manifest.metadata?.assembled_by).toBe('orchestrator');
    const events = readFileSync(join(fixture.root, '.aiwg/rag/working-set-events.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { why: string; by: string });
    expect(events.every((e) => e.by === 'orchestrator')).toBe(true);
    expect(events.map((e) => e.why)).toContain('bump: used in 1 of the newest 1 budget record');
  });
});

describe('aiwg handoff-context (example handoffs)', () => {
  it('phase 3: goal from phase 1, verdicts accumulated, artifacts of both phases, no decisions or risks', async () => {
    const io = fakeIo(REPO);
    expect(await runMain(['handoff-context', '--phase', '3', '--dir', HANDOFFS, '--no-log', '--tokenizer', 'chars4'], io)).toBe(0);
    const text = io.out();
    expect(text).toMatch(/^## Context from prior phases\n\nGoal: Let agents declare/);
    expect(text).toContain('Epic: aiwg-7');
    expect(text).toContain('Verdicts:\n- pre_mortem: PASS\n- vibe: PASS');
    expect(text).toContain('### Phase 2 (implementation)\nArtifacts produced:\n- src/manifest/working-set/assemble.ts');
    expect(text).not.toContain('Decisions made');
    expect(text).not.toContain('Open risks');
    expect(io.err()).toMatch(/^budget: \d+\/2500 tokens \(\d+ before\)\n$/);
  });

  it('--json reports the manifest and budget, and the log line is appended under the root', async () => {
    const fixture = makeTempDir();
    try {
      const io = fakeIo(fixture.root);
      expect(await runMain(['handoff-context', '--phase', '2', '--dir', HANDOFFS, '--json', '--tokenizer', 'chars4'], io)).toBe(0);
      const parsed = JSON.parse(io.out()) as { manifest: unknown; handoffs: number; context: string; budget: { budget_tokens: number; was_truncated: boolean } };
      expect(parsed.manifest).toEqual({ phase: 2, handoff_fields: ['goal', 'epic_id', 'verdicts', 'decisions_made', 'open_risks'], narrative_cap: 500, max_tokens: 2500 });
      expect(parsed.handoffs).toBe(1);
      expect(parsed.context).toContain('Decisions made:');
      expect(parsed.context).not.toContain('Artifacts produced');
      const log = readFileSync(join(fixture.root, '.aiwg/rag/context-budget-log.jsonl'), 'utf8').trimEnd().split('\n');
      expect(log).toHaveLength(1);
      expect(Object.keys(JSON.parse(log[0]!) as object)).toEqual(['run_id', 'phase', 'original_tokens', 'budget_tokens', 'truncated_tokens', 'was_truncated', 'ts']);
    } finally {
      fixture.cleanup();
    }
  });

  it('overrides from .aiwg/rag/phase-manifests.yaml apply, unknown fields are warnings', async () => {
    const fixture = makeTempDir();
    try {
      fixture.write('.aiwg/rag/phase-manifests.yaml', 'phases:\n  3:\n    handoff_fields: [goal, golas]\n    narrative_cap: 0\n');
      const io = fakeIo(fixture.root);
      expect(await runMain(['handoff-context', '--phase', '3', '--dir', HANDOFFS, '--no-log'], io)).toBe(0);
      expect(io.out()).toMatch(/^## Context from prior phases\n\nGoal: .*\n$/);
      expect(io.err()).toMatch(/warning: phase 3 manifest: unknown handoff field "golas" ignored/);
    } finally {
      fixture.cleanup();
    }
  });

  it('phase 1 has no prior handoffs: empty context, a note on stderr', async () => {
    const io = fakeIo(REPO);
    expect(await runMain(['handoff-context', '--phase', '1', '--dir', HANDOFFS, '--no-log'], io)).toBe(0);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/no handoffs before phase 1/);
  });

  it('--phase is required', async () => {
    const io = fakeIo(REPO);
    expect(await runMain(['handoff-context'], io)).toBe(2);
    expect(io.err()).toMatch(/--phase N is required/);
  });
});
