import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { BIN } from '../helpers/run-bin.js';
import { resolveBudgetLogPath, resolveRecordsDir } from '../../src/cache/cache-dir.js';
import { logLine } from '../../src/record/write-record.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';

/** An independent o200k count: gpt-tokenizer directly, not the engine's tokenizer module. */
const o200k = (text: string): number => countTokens(text, { disallowedSpecial: new Set() });

function serviceRepo(): Fixture {
  const body = (name: string, lines: number) =>
    Array.from({ length: lines }, (_, i) => `  // ${name} step ${i}: count the attempt, wait, then try the request again\n  total += ${i};`).join('\n');
  return makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/http/retry.ts': `/** Retries a request with exponential backoff. */\nexport function retryWithBackoff(attempts: number): number {\n  let total = 0;\n${body('retry', 60)}\n  return total * attempts;\n}\n`,
        'src/http/client.ts': `import { retryWithBackoff } from './retry.js';\n/** The http client. */\nexport const client = { get: () => retryWithBackoff(3) };\n`,
        'src/billing/invoice.ts': `/** Invoice totals. */\nexport function invoiceTotal(lines: number[]): number {\n  let total = 0;\n${body('invoice', 60)}\n  return total;\n}\n`,
        'docs/http.md': '# HTTP\n\nThe client retries failed requests with exponential backoff.\n',
        'working-set.yml': 'protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: 2000\nfiles:\n  - path: src/http/retry.ts\n    priority: 1\n  - path: docs/http.md\n    priority: 0.5\n',
        '.aiwg/rag/handoffs/phase-1.json': JSON.stringify({ goal: 'make the http client resilient', decisions_made: ['retry with exponential backoff'], narrative: 'Phase one chose backoff.' }),
        '.aiwg/rag/phase-manifests.yaml': 'phases:\n  2:\n    max_tokens: 300\n',
      },
    },
  ]);
}

function text(result: CallToolResult, index = 0): string {
  const block = result.content[index];
  if (block?.type !== 'text') throw new Error(`content[${index}] is not text: ${JSON.stringify(block)}`);
  return block.text;
}

describe('aiwg mcp (child process, driven by the SDK client over stdio)', () => {
  let repo: Fixture;
  let client: Client;
  let transport: StdioClientTransport;
  const stderr: string[] = [];
  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    repo = serviceRepo();
    const env = Object.fromEntries(Object.entries({ ...process.env, NO_COLOR: '1' }).filter((e): e is [string, string] => typeof e[1] === 'string'));
    transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', repo.root], env, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    client = new Client({ name: 'aiwg-e2e', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    repo.cleanup();
  });

  it('lists the tools with object input schemas from the zod schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['assemble', 'context_budget', 'context_score', 'conversation_build', 'conversation_output', 'handoff_context', 'shared_context', 'summarize']);
    const budget = tools.find((t) => t.name === 'context_budget');
    expect(budget?.inputSchema.type).toBe('object');
    expect(budget?.inputSchema.required).toEqual(['task']);
    expect(Object.keys(budget?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['task', 'budget', 'format', 'scoring', 'mode']));
    expect(budget?.outputSchema?.type).toBe('object');
    for (const tool of tools) expect(tool.description?.length ?? 0).toBeGreaterThan(40);
  });

  it('context_budget: the context within the budget by an independent o200k count, the allocation summary, the record as the CLI writes it', async () => {
    const result = await call('context_budget', { task: 'fix the retry backoff in the http client', budget: 1200, scoring: 'keyword' });
    expect(result.isError).not.toBe(true);
    const context = text(result);
    expect(o200k(context)).toBeLessThanOrEqual(1200);
    const summary = result.structuredContent as { run_id: string; tokens: number; available: number; files: Array<{ path: string; tier: string; level: string; tokens: number }>; record: string };
    expect(JSON.parse(text(result, 1))).toEqual(summary);
    expect(summary.available).toBe(1200);
    expect(summary.tokens).toBe(o200k(context));
    expect(summary.files.map((f) => f.path)).toContain('src/http/retry.ts');
    for (const f of summary.files) {
      expect(context).toContain(`path="${f.path}" level="${f.level}"`);
      expect(['primary', 'supporting', 'reference']).toContain(f.tier);
    }
    const records = readdirSync(resolveRecordsDir(repo.root));
    const mine = records.find((name) => name.endsWith(`-${summary.run_id}.json`));
    expect(mine).toBeDefined();
    expect(summary.record).toBe(`.aiwg/rag/budget-records/${mine}`);
    const record = JSON.parse(readFileSync(join(resolveRecordsDir(repo.root), mine ?? ''), 'utf8')) as BudgetRecord;
    const log = readFileSync(resolveBudgetLogPath(repo.root), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { run_id: string });
    expect(log.find((l) => l.run_id === summary.run_id)).toEqual(logLine(record));
  });

  it('context_budget twice with an edit in between: the second answer reflects the edit', async () => {
    const task = 'add jitter to the retry backoff delay';
    const first = await call('context_budget', { task, budget: 1500, scoring: 'keyword', record: false });
    expect(text(first)).not.toContain('jitterDelay');
    repo.write('src/http/jitter.ts', '/** Random jitter for the retry backoff delay. */\nexport function jitterDelay(delayMs: number): number {\n  return delayMs * (0.5 + Math.random());\n}\n');
    const second = await call('context_budget', { task, budget: 1500, scoring: 'keyword', record: false });
    expect(second.isError).not.toBe(true);
    expect(text(second)).toContain('jitterDelay');
    const files = (second.structuredContent as { files: Array<{ path: string }> }).files.map((f) => f.path);
    expect(files).toContain('src/http/jitter.ts');
    expect(o200k(text(second))).toBeLessThanOrEqual(1500);
  });

  it('an edit of a committed file between two queries (same size) is in the next answer', async () => {
    const task = 'fix the invoice total';
    const first = await call('context_budget', { task, budget: 3000, scoring: 'keyword', record: false });
    expect(text(first)).toContain('invoiceTotal');
    const before = readFileSync(join(repo.root, 'src/billing/invoice.ts'), 'utf8');
    // Same byte length: only the stat (mtime) and the racy-stat guard can tell the file changed.
    repo.write('src/billing/invoice.ts', before.replace('invoiceTotal', 'invoiceGross'));
    const second = await call('context_budget', { task, budget: 3000, scoring: 'keyword', record: false });
    expect(second.isError).not.toBe(true);
    expect(text(second)).toContain('invoiceGross');
    expect(text(second)).not.toContain('invoiceTotal');
  });

  it('context_score explains one file', async () => {
    const result = await call('context_score', { file: 'src/http/retry.ts', task: 'fix the retry backoff', scoring: 'keyword' });
    expect(result.isError).not.toBe(true);
    expect(text(result)).toContain('task_alignment');
    expect(result.structuredContent).toMatchObject({ task: 'fix the retry backoff', path: 'src/http/retry.ts' });
  });

  it('summarize gives one file at one level with its token count', async () => {
    const result = await call('summarize', { file: 'src/http/retry.ts', level: 'stub' });
    expect(result.isError).not.toBe(true);
    const summary = result.structuredContent as { path: string; level: string; tokens: number };
    expect(summary).toMatchObject({ path: 'src/http/retry.ts', level: 'stub' });
    expect(summary.tokens).toBe(o200k(text(result)));
  });

  it('assemble builds the working set and logs the event as the CLI does', async () => {
    const result = await call('assemble', {});
    expect(result.isError).not.toBe(true);
    expect(text(result)).toContain('retryWithBackoff');
    expect(result.structuredContent).toMatchObject({ manifest: 'working-set.yml' });
    const events = readFileSync(join(repo.root, '.aiwg', 'rag', 'working-set-events.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(events.at(-1) ?? '{}')).toMatchObject({ action: 'assembled', manifest: 'working-set.yml' });
  });

  it('handoff_context builds phase 2 from phase 1 and appends the budget log line', async () => {
    const result = await call('handoff_context', { phase: 2 });
    expect(result.isError).not.toBe(true);
    expect(text(result)).toContain('retry with exponential backoff');
    expect(result.structuredContent).toMatchObject({ phase: 2, handoffs: 1 });
    const log = readFileSync(resolveBudgetLogPath(repo.root), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: number | null });
    expect(log.at(-1)).toMatchObject({ phase: 2, budget_tokens: 300 });
  });

  it('conversation_build gives an OpenAI payload within max_tokens; conversation_output recovers the cut tool output', async () => {
    const output = Array.from({ length: 400 }, (_, i) => `  ✓ retry case ${i} passed`).join('\n');
    const session = {
      id: 'mcp-session',
      system: 'You are a coding agent.',
      messages: [
        { role: 'user', content: 'Run the tests.' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: '{"cmd":"npm test"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: output },
      ],
    };
    writeFileSync(join(repo.root, 'session.json'), JSON.stringify(session));
    const result = await call('conversation_build', { session: 'session.json', max_tokens: 1000 });
    expect(result.isError).not.toBe(true);
    expect(o200k(text(result))).toBeLessThanOrEqual(1000);
    const payload = JSON.parse(text(result)) as { messages: Array<{ role: string; content: string | null }> };
    expect(payload.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    const summary = result.structuredContent as { tokens: number; stored_outputs: string[]; record: { session_id: string } };
    expect(summary.tokens).toBe(o200k(text(result)));
    expect(summary.record.session_id).toBe('mcp-session');
    const pointer = /show-output (sha256:[0-9a-f]{16})/.exec(payload.messages[3]!.content ?? '')![1]!;
    expect(summary.stored_outputs).toEqual([pointer]);
    const full = await call('conversation_output', { pointer });
    expect(text(full)).toBe(output);
    const outside = await call('conversation_build', { session: '../outside.json' });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/^conversation_build: session "\.\.\/outside\.json" is outside the root/);
  });

  it.each([
    ['context_budget', {}, /^context_budget: task: is required/],
    ['context_budget', { task: 'fix the retry', budget: -5 }, /^context_budget: budget: -5 is too small: use a value >= 1/],
    ['context_budget', { task: '   ' }, /^context_budget: the task is empty: the "task" argument is required/],
    ['context_score', { file: 'src/http/retry.ts', task: '' }, /^context_score: the task is empty: the "task" argument is required/],
    ['context_budget', { task: 'fix the retry', format: 'yaml' }, /^context_budget: format: got "yaml": use one of "xml", "markdown", "json"/],
    ['context_budget', { task: 'fix the retry', colour: true }, /^context_budget: arguments: unknown key "colour"/],
    ['summarize', { file: '../outside.txt' }, /^summarize: \.\.\/outside\.txt: (outside the root|no such file)/],
    ['summarize', { file: '/etc/passwd' }, /^summarize: \/etc\/passwd: outside the root/],
    ['context_score', { file: '/etc/hostname', task: 'retry' }, /^context_score: .*outside the root/],
    ['assemble', { working_set: '../elsewhere/working-set.yml' }, /^assemble: working_set "\.\.\/elsewhere\/working-set\.yml" is outside the root/],
    ['handoff_context', { phase: 2, dir: '/tmp' }, /^handoff_context: dir "\/tmp" is outside the root/],
    ['handoff_context', { phase: 0 }, /^handoff_context: phase: 0 is too small/],
    ['no_such_tool', {}, /^unknown tool "no_such_tool"/],
  ])('%s %o is a one-line tool error and the server keeps serving', async (name, args, message) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(text(result)).not.toContain('\n');
    const next = await call('summarize', { file: 'docs/http.md', level: 'full' });
    expect(next.isError).not.toBe(true);
    expect(stderr.join('')).not.toMatch(/internal error/);
  });
});
