import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/command.js';
import { runMain } from '../../../src/cli/main.js';
import { readOutput } from '../../../src/conversation/store.js';
import { parseWorkingSet } from '../../../src/manifest/working-set/schema.js';
import { TOOL_OUTPUTS_DIR } from '../../../src/manifest/working-set/tool-output.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';

const BIN = join(import.meta.dirname, '../../../bin/aiwg.js');

function fakeIo(cwd: string): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {}, cwd, isTTY: false, out: () => out, err: () => err };
}

/** A test log: 400 distinct lines, a progress bar redrawn 50 times, a failure at the end. */
function testLog(tag: string): string {
  const lines = Array.from({ length: 400 }, (_, i) => `${tag} line ${i} ok`);
  return `${lines.join('\n')}\n${'Downloading 45% [=====>    ]\n'.repeat(50)}FAIL ${tag}.test.ts expected 2 got 3\n`;
}

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

function setup(maxTokens = 2000): Fixture {
  fixture = makeTempDir();
  fixture.write('working-set.yml', `protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: ${maxTokens}\nfiles:\n  - path: task.md\n    priority: 1\n    role: developer\n`);
  fixture.write('task.md', '# Task\nFix the failing test.\n');
  // A link inside the root to a file outside it.
  symlinkSync('/etc/hostname', join(fixture.root, 'escape.log'));
  return fixture;
}

async function assemble(root: string): Promise<{ context: string; report: { budget: { used: number; effective: number }; included: Array<{ path: string }> } }> {
  const io = fakeIo(root);
  expect(await runMain(['assemble', '--json', '--tokenizer', 'chars4', '--no-levels', '--no-log'], io)).toBe(0);
  return JSON.parse(io.out());
}

describe('aiwg working-set tool-output (spec 001 section 6, orchestrator-initiated updates)', () => {
  it('adds a normalised, capped tool output with its full text out of band; assemble shows it within budget; remove takes it out', async () => {
    const { root, write } = setup();
    write('logs/npm-test.log', testLog('unit'));
    const io = fakeIo(root);
    expect(await runMain(['working-set', 'tool-output', 'add', 'npm-test', '--from', 'logs/npm-test.log', '--cap', '300', '--why', 'latest test run', '--json'], io)).toBe(0);
    const path = `${TOOL_OUTPUTS_DIR}/npm-test.txt`;
    expect(JSON.parse(io.out())).toMatchObject([{ action: 'add_to_working_set', path, by: 'orchestrator', why: 'latest test run', priority: 0.3 }]);
    const entry = parseWorkingSet(readFileSync(join(root, 'working-set.yml'), 'utf8'), 'working-set.yml').files.find((f) => f.path === path);
    expect(entry).toMatchObject({ role: 'context', truncate_strategy: 'start' });

    // Kept text: pointer line, progress collapsed, the end (the failure) kept, within the cap.
    const kept = readFileSync(join(root, path), 'utf8');
    const pointer = /show-output (sha256:[0-9a-f]{16})\]/.exec(kept)?.[1];
    expect(pointer).toBeDefined();
    expect(kept).not.toContain('Downloading 45% [=====>    ]\nDownloading');
    expect(kept).toContain('FAIL unit.test.ts expected 2 got 3');
    expect(kept).not.toContain('unit line 0 ok');
    expect(Math.ceil(kept.length / 4)).toBeLessThanOrEqual(300);
    // The full text is recoverable from the pointer.
    expect(await readOutput(root, pointer!)).toBe(testLog('unit'));

    const withOutput = await assemble(root);
    expect(withOutput.report.included.map((f) => f.path)).toEqual(['task.md', path]);
    expect(withOutput.context).toContain('FAIL unit.test.ts');
    // Budget kept, counted independently of the engine (chars4 = ceil(chars / 4)).
    expect(Math.ceil(withOutput.context.length / 4)).toBe(withOutput.report.budget.used);
    expect(withOutput.report.budget.used).toBeLessThanOrEqual(withOutput.report.budget.effective);

    const removeIo = fakeIo(root);
    expect(await runMain(['working-set', 'tool-output', 'remove', 'npm-test', '--why', 'fixed'], removeIo)).toBe(0);
    expect(removeIo.out()).toBe(`removed ${path} from working-set.yml: fixed\n`);
    expect(existsSync(join(root, path))).toBe(false);
    const without = await assemble(root);
    expect(without.report.included.map((f) => f.path)).toEqual(['task.md']);
    expect(without.context).not.toContain('FAIL unit.test.ts');
  });

  it('--keep N keeps only the N most recent tool outputs; adding a name again replaces it', async () => {
    const { root, write } = setup(20000);
    for (const tag of ['a', 'b', 'c']) {
      write(`logs/${tag}.log`, `${tag} output\n`);
      expect(await runMain(['working-set', 'tool-output', 'add', tag, '--from', `logs/${tag}.log`, '--keep', '2', '--why', `run ${tag}`], fakeIo(root))).toBe(0);
    }
    const outputs = () => parseWorkingSet(readFileSync(join(root, 'working-set.yml'), 'utf8'), 'w').files.map((f) => f.path).filter((p) => p.startsWith(TOOL_OUTPUTS_DIR));
    expect(outputs()).toEqual([`${TOOL_OUTPUTS_DIR}/b.txt`, `${TOOL_OUTPUTS_DIR}/c.txt`]);
    expect(existsSync(join(root, TOOL_OUTPUTS_DIR, 'a.txt'))).toBe(false);
    // Short verbatim output: no pointer, nothing stored out of band.
    expect(readFileSync(join(root, TOOL_OUTPUTS_DIR, 'c.txt'), 'utf8')).toBe('c output\n');
    write('logs/b.log', 'b output, second run\n');
    expect(await runMain(['working-set', 'tool-output', 'add', 'b', '--from', 'logs/b.log', '--why', 'rerun b'], fakeIo(root))).toBe(0);
    expect(outputs()).toEqual([`${TOOL_OUTPUTS_DIR}/c.txt`, `${TOOL_OUTPUTS_DIR}/b.txt`]);
    expect((await assemble(root)).context).toContain('b output, second run');
  });

  it('runs as the real binary: the manifest is rewritten whole (no temp file left behind)', () => {
    const { root, write } = setup();
    write('logs/build.log', testLog('build'));
    const run = spawnSync(process.execPath, [BIN, 'working-set', 'tool-output', 'add', 'build', '--from', 'logs/build.log', '--why', 'build log'], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^tool output build: \d+ tokens kept in \.aiwg\/conversation\/tool-outputs\/build\.txt; full text sha256:[0-9a-f]{16} /);
    const listing = spawnSync('ls', ['-a', root], { encoding: 'utf8' }).stdout.split('\n').filter((n) => n.startsWith('working-set'));
    expect(listing).toEqual(['working-set.yml']);
  });

  it.each([
    [['working-set', 'tool-output', 'add', 'x', '--from', '/etc/passwd', '--why', 'y'], /^aiwg working-set: --from \/etc\/passwd: is outside the root .*; copy it into the root or pass --root\n$/],
    [['working-set', 'tool-output', 'add', 'x', '--from', 'escape.log', '--why', 'y'], /is outside the root/],
    [['working-set', 'tool-output', 'add', '../x', '--from', 'task.md', '--why', 'y'], /^aiwg working-set: tool output name "\.\.\/x" is not valid: use letters/],
    [['working-set', 'tool-output', 'add', 'x', '--why', 'y'], /tool-output add needs --from FILE/],
    [['working-set', 'tool-output', 'add', 'x', '--from', 'task.md'], /--why "\.\.\." is required/],
    [['working-set', 'tool-output', 'add', 'x', '--from', 'task.md', '--why', 'y', '--keep', '0'], /--keep "0" is not a whole number of tool outputs >= 1/],
    [['working-set', 'tool-output', 'add', 'x', '--from', 'missing.log', '--why', 'y'], /--from missing\.log: it /],
    [['working-set', 'tool-output', 'list'], /tool-output expects add or remove, got "list"/],
    [['working-set', 'tool-output', 'remove', 'never-added', '--why', 'y'], /\.aiwg\/conversation\/tool-outputs\/never-added\.txt is not in the working set/],
  ])('%j fails with a one-line error and exit 2, the manifest unchanged', async (argv, message) => {
    const { root } = setup();
    const before = readFileSync(join(root, 'working-set.yml'), 'utf8');
    const io = fakeIo(root);
    expect(await runMain(argv, io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(io.err().trimEnd().split('\n')).toHaveLength(1);
    expect(readFileSync(join(root, 'working-set.yml'), 'utf8')).toBe(before);
  });
});

const EXAMPLE_SESSION = join(import.meta.dirname, '../../../.aiwg/examples/conversation/coding-session.json');

describe('conversation-history slot of a working set (spec 001 section 8)', () => {
  function withSession(slot: string): Fixture {
    const f = setup(4000);
    f.write('sessions/s.json', readFileSync(EXAMPLE_SESSION, 'utf8'));
    f.write('working-set.yml', `${readFileSync(join(f.root, 'working-set.yml'), 'utf8')}${slot}`);
    return f;
  }

  it('places the session\'s summary and recent window, built by the conversation builder, within the slot\'s share and the budget', async () => {
    const { root } = withSession('conversation:\n  session: sessions/s.json\n  max_tokens: 1200\n');
    const { context, report } = await assemble(root);
    const entry = report.included.find((f) => f.path === 'sessions/s.json') as { path: string; tokens: number } | undefined;
    expect(entry).toBeDefined();
    expect(context).toContain('Session summary (engine-authored');
    // The newest message of the example session is in the recent window.
    const session = JSON.parse(readFileSync(EXAMPLE_SESSION, 'utf8')) as { messages: Array<{ role: string; content?: string }> };
    const last = [...session.messages].reverse().find((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content.length > 20)!;
    expect(context).toContain(last.content!.slice(0, 20));
    // Independent count (chars4): the slot's text stays within its max_tokens, the whole within the budget.
    const block = /<context path="sessions\/s\.json">\n([\s\S]*?)\n<\/context>/.exec(context)![1]!;
    expect(Math.ceil(block.length / 4)).toBeLessThanOrEqual(1200 + 50);
    expect(Math.ceil(context.length / 4)).toBe(report.budget.used);
    expect(report.budget.used).toBeLessThanOrEqual(report.budget.effective);
    // The builder kept its session record: the next assembly resumes from the summary.
    expect(existsSync(join(root, '.aiwg/conversation/sessions'))).toBe(true);
  });

  it.each([
    ['conversation:\n  session: ../outside.json\n', /conversation\.session.*outside the root|conversation\.session.*\.\./],
    ['conversation:\n  session: escape.log\n', /is outside the root/],
    ['conversation:\n  session: sessions/s.json\n  max_tokens: 0\n', /conversation\.max_tokens/],
    ['conversation:\n  session: task.md\n', /task\.md/],
  ])('%j fails with a one-line error and exit 2', async (slot, message) => {
    const { root } = withSession(slot);
    const io = fakeIo(root);
    expect(await runMain(['assemble', '--tokenizer', 'chars4', '--no-levels', '--no-log'], io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(io.err().trimEnd().split('\n')).toHaveLength(1);
    expect(io.out()).toBe('');
  });
});
