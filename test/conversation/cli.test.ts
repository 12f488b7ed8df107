import { mkdtemp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { AnthropicPayloadSchema, OpenAiPayloadSchema } from './api-schemas.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempRoot(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aiwg-conversation-'));
  dirs.push(dir);
  return dir;
}

const BIG_OUTPUT = ['> npm test', ...Array.from({ length: 3000 }, (_, i) => `  ✓ case ${i} (${i % 13} ms)`), 'Tests: 1 failed, 2999 passed'].join('\n');
const SESSION = {
  id: 'cli-session',
  system: 'You are a coding agent.',
  messages: [
    { role: 'user', content: 'Run the tests and fix what fails. My key is ghp_abcdefghijklmnopqrstuvwxyz0123456789AB.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: '{"cmd":"npm test"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: BIG_OUTPUT },
    { role: 'assistant', content: 'One test fails.' },
  ],
};

describe('aiwg conversation', () => {
  it('build prints an OpenAI payload within --max-tokens; show-output recovers the cut output in full', async () => {
    const root = await tempRoot();
    await writeFile(join(root, 'session.json'), JSON.stringify(SESSION));
    const built = await runCli(['conversation', 'build', '--session', 'session.json', '--max-tokens', '3000', '--json'], root);
    expect(built.code).toBe(0);
    const result = JSON.parse(built.stdout);
    expect(result.tokens).toBeLessThanOrEqual(3000);
    OpenAiPayloadSchema.parse(result.payload);
    expect(JSON.stringify(result.payload)).toContain('[REDACTED github-token]');
    expect(JSON.stringify(result.payload)).not.toContain('ghp_abc');
    const tool = result.payload.messages.find((m: { role: string }) => m.role === 'tool');
    const pointer = /show-output (sha256:[0-9a-f]{16})/.exec(tool.content)![1];
    expect(result.stored_outputs).toEqual([pointer]);

    const shown = await runCli(['conversation', 'show-output', pointer], root);
    expect(shown).toEqual({ code: 0, stdout: BIG_OUTPUT, stderr: '' });
    expect(await readFile(join(root, '.aiwg', 'conversation', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(JSON.parse(await readFile(join(root, '.aiwg', 'conversation', 'sessions', 'cli-session.json'), 'utf8'))).toMatchObject({ session_id: 'cli-session', window: [1, 2, 3, 4] });
  });

  it('prints the payload alone on stdout and the report on stderr; anthropic and text formats', async () => {
    const root = await tempRoot();
    await writeFile(join(root, 'session.json'), JSON.stringify(SESSION));
    const anthropic = await runCli(['conversation', 'build', '--session', 'session.json', '--max-tokens', '3000', '--format', 'anthropic', '--no-store'], root);
    expect(anthropic.code).toBe(0);
    AnthropicPayloadSchema.parse(JSON.parse(anthropic.stdout));
    expect(anthropic.stderr).toMatch(/^conversation cli-session: [\d,]+ of 3,000 tokens \(o200k\); 4 of 4 messages in the window; no summary needed; 1 tool output stored out of band\n$/);
    expect(await readdir(root)).toEqual(['session.json']);
    const text = await runCli(['conversation', 'build', '--session', 'session.json', '--format', 'text', '--no-store'], root);
    expect(text.stdout).toMatch(/^<system>\nYou are a coding agent\.\n<\/system>\n<user index="1">/);
  });

  it.each([
    [['conversation', 'build'], /--session FILE is required/],
    [['conversation'], /expected a subcommand \(build, show-output\), got none/],
    [['conversation', 'build', '--session', 'session.json', '--format', 'gemini'], /--format "gemini" is not valid: use one of openai, anthropic, text/],
    [['conversation', 'build', '--session', 'session.json', '--max-tokens', 'lots'], /--max-tokens "lots" is not a whole number/],
    [['conversation', 'build', '--session', 'missing.json'], /--session missing\.json: cannot read the file \(ENOENT\)/],
    [['conversation', 'build', '--session', 'bad.json'], /bad\.json: invalid JSON at line 1, column 2/],
    [['conversation', 'build', '--session', 'typo.json'], /typo\.json: unknown key "mesages"/],
    [['conversation', 'build', '--session', 'outside.json'], /--session outside\.json is outside the root/],
    [['conversation', 'build', '--session', 'dir.json'], /--session dir\.json is not a regular file/],
    [['conversation', 'show-output', 'nonsense'], /"nonsense" is not an output pointer/],
    [['conversation', 'show-output', 'sha256:0123456789abcdef'], /no stored output sha256:0123456789abcdef/],
  ])('bad input %j: one line, exit 2', async (argv, message) => {
    const root = await tempRoot();
    const elsewhere = await tempRoot();
    await writeFile(join(root, 'session.json'), JSON.stringify(SESSION));
    await writeFile(join(root, 'bad.json'), '{,}');
    await writeFile(join(root, 'typo.json'), '{"mesages": []}');
    await writeFile(join(elsewhere, 'secret.json'), JSON.stringify(SESSION));
    await symlink(join(elsewhere, 'secret.json'), join(root, 'outside.json'));
    await mkdir(join(root, 'dir.json'));
    const run = await runCli(argv, root);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('refuses a budget the system prompt alone exceeds with exit 1', async () => {
    const root = await tempRoot();
    await writeFile(join(root, 'session.json'), JSON.stringify({ ...SESSION, system: 'rule. '.repeat(500) }));
    const run = await runCli(['conversation', 'build', '--session', 'session.json', '--max-tokens', '100'], root);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the system prompt alone needs [\d,]+ tokens but --max-tokens is 100: raise --max-tokens or shorten the system prompt/);
  });
});

describe('the shipped example session', () => {
  const EXAMPLE = join(process.cwd(), '.aiwg', 'examples', 'conversation', 'coding-session.json');

  it.each([
    ['openai', 8000],
    ['anthropic', 8000],
    ['openai', 3000],
    ['anthropic', 3000],
  ] as const)('builds a valid %s payload within %i tokens, and every cut output comes back in full', async (format, budget) => {
    const root = await tempRoot();
    await writeFile(join(root, 'session.json'), await readFile(EXAMPLE));
    const run = await runCli(['conversation', 'build', '--session', 'session.json', '--format', format, '--max-tokens', String(budget), '--json'], root);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.tokens).toBeLessThanOrEqual(budget);
    (format === 'openai' ? OpenAiPayloadSchema : AnthropicPayloadSchema).parse(result.payload);
    expect(result.report.messages.in_session).toBe(49);
    expect(result.report.tool_outputs.capped + result.report.summary.events_added).toBeGreaterThan(0);
    const session = JSON.parse(await readFile(EXAMPLE, 'utf8'));
    const originals = new Set(session.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content));
    for (const pointer of result.stored_outputs) {
      const shown = await runCli(['conversation', 'show-output', pointer], root);
      expect(originals.has(shown.stdout)).toBe(true);
    }
    // The second build resumes from the session record.
    const again = JSON.parse((await runCli(['conversation', 'build', '--session', 'session.json', '--format', format, '--max-tokens', String(budget), '--json'], root)).stdout);
    expect(again.report.summary).toMatchObject({ resumed: true, events_added: 0 });
    expect(again.payload).toEqual(result.payload);
  });
});
