import { describe, expect, it } from 'vitest';
import { groupMessages, selectHistoryWindow } from '../../src/assemble/history-window.js';
import { createChars4Tokenizer } from '../../src/tokenize/tokenizer.js';
import type { HistoryMessage } from '../../src/stages.js';

const tokenizer = createChars4Tokenizer();
const call = (id: string): HistoryMessage => ({ role: 'assistant', content: '', tool_calls: [{ id, name: 'run', arguments: '{}' }] });
const result = (id: string, content = 'ok'): HistoryMessage => ({ role: 'tool', tool_call_id: id, content });

describe('groupMessages', () => {
  it.each<[string, HistoryMessage[], number[][], number]>([
    ['plain turns', [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }], [[0], [1]], 0],
    ['a call with its result', [{ role: 'user', content: 'a' }, call('c1'), result('c1')], [[0], [1, 2]], 0],
    ['a dangling call', [call('c1'), { role: 'user', content: 'next' }], [[1]], 1],
    ['an orphan result', [result('c9'), { role: 'user', content: 'x' }], [[1]], 1],
    ['a call missing one of two results', [{ ...call('c1'), tool_calls: [{ id: 'c1', name: 'a', arguments: '' }, { id: 'c2', name: 'b', arguments: '' }] }, result('c1')], [], 2],
    ['a result answering another call', [call('c1'), result('c1'), result('zz')], [[0, 1]], 1],
    ['positional pairing without ids', [{ role: 'assistant', content: 'running' }, { role: 'tool', content: 'out' }], [[0, 1]], 0],
  ])('%s', (_, messages, groups, invalid) => {
    expect(groupMessages(messages)).toEqual({ groups, invalid });
  });
});

describe('selectHistoryWindow', () => {
  const messages: HistoryMessage[] = [
    { role: 'user', content: 'first question '.repeat(10) },
    call('c1'),
    // Distinct lines: a run of identical ones is collapsed before any cap (spec 002 D).
    result('c1', Array.from({ length: 200 }, (_, i) => `log line ${i}\n`).join('')),
    { role: 'user', content: 'latest' },
  ];

  it('keeps the newest messages that fit, never a call without its result', () => {
    const all = selectHistoryWindow(messages, { budget: 10_000, capBudget: 400, format: 'xml', tokenizer });
    expect(all.kept.map((m) => m.index)).toEqual([0, 1, 2, 3]);
    const lastTwoGroups = all.kept.filter((m) => m.index > 0).reduce((n, m) => n + m.cost, 0);
    const window = selectHistoryWindow(messages, { budget: lastTwoGroups, capBudget: 400, format: 'xml', tokenizer });
    expect(window.kept.map((m) => m.index)).toEqual([1, 2, 3]);
    expect(window.older).toBe(1);
    const tight = selectHistoryWindow(messages, { budget: lastTwoGroups - 1, capBudget: 400, format: 'xml', tokenizer });
    expect(tight.kept.map((m) => m.index)).toEqual([3]);
  });

  it('caps tool output at a quarter of the budget, keeping its end', () => {
    const window = selectHistoryWindow(messages, { budget: 10_000, capBudget: 400, format: 'xml', tokenizer });
    const tool = window.kept.find((m) => m.role === 'tool')!;
    expect(tool.truncated).toBe(true);
    expect(tool.contentTokens).toBeLessThanOrEqual(100);
    expect(tool.content).toMatch(/^\[\.\.\. .* cut .*\]\n(log line \d+\n)+$/);
    expect(window.capped).toBe(1);
  });

  it('collapses progress noise and repeated lines in tool output before capping it', () => {
    const window = selectHistoryWindow([call('c1'), result('c1', 'Downloading 5%\nDownloading 99%\n' + 'log line\n'.repeat(200))], { budget: 10_000, capBudget: 400, format: 'xml', tokenizer });
    expect(window.kept[1]!.content).toBe('[... 1 progress line collapsed ...]\nDownloading 99%\nlog line\n[... previous line repeated 199 more times ...]\n');
    expect(window.kept[1]!.truncated).toBe(true);
  });

  it('bounds the window by message count too', () => {
    const many: HistoryMessage[] = Array.from({ length: 50 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));
    expect(selectHistoryWindow(many, { budget: 10_000, capBudget: 400, format: 'xml', tokenizer }).kept.map((m) => m.index)).toEqual(Array.from({ length: 40 }, (_, i) => i + 10));
    expect(selectHistoryWindow(many, { budget: 10_000, capBudget: 400, format: 'xml', tokenizer, maxMessages: 5 }).older).toBe(45);
  });

  it('renders tool calls into the assistant message', () => {
    const window = selectHistoryWindow([call('c1'), result('c1')], { budget: 1000, capBudget: 1000, format: 'xml', tokenizer });
    expect(window.kept[0]!.content).toBe('[tool call c1: run({})]');
  });
});
