import { describe, expect, it } from 'vitest';
import { objectArguments, pairToolCalls } from '../../src/conversation/ordering.js';
import type { HistoryMessage } from '../../src/stages.js';

const call = (...ids: string[]): HistoryMessage => ({ role: 'assistant', content: '', tool_calls: ids.map((id) => ({ id, name: 'run', arguments: '{}' })) });
const result = (id: string, content = 'ok'): HistoryMessage => ({ role: 'tool', tool_call_id: id, content });
const user = (content: string): HistoryMessage => ({ role: 'user', content });
const shape = (messages: HistoryMessage[]) => {
  const paired = pairToolCalls(messages);
  return { order: paired.groups.map((g) => g.map((m) => m.index)), invalid: paired.invalid, deferred: paired.deferred };
};

describe('pairToolCalls (spec 002 A and B)', () => {
  it('regression: a plan step injected before the tool results moves after them', () => {
    // assistant(tool_calls) -> user(step) -> tool(results) becomes assistant -> tool -> user.
    expect(shape([user('fix it'), call('c1'), user('Step 2: write the fix'), result('c1')])).toEqual({ order: [[0], [1, 3], [2]], invalid: 0, deferred: 1 });
  });

  it.each<[string, HistoryMessage[], number[][], number]>([
    ['a call with its results', [call('a', 'b'), result('a'), result('b')], [[0, 1, 2]], 0],
    ['results in another order answer their calls', [call('a', 'b'), result('b'), result('a')], [[0, 2, 1]], 0],
    ['a dangling call is dropped', [user('x'), call('a')], [[0]], 1],
    ['an orphan result is dropped', [result('zz'), user('x')], [[1]], 1],
    ['a call missing one result is dropped whole', [call('a', 'b'), result('a'), user('x')], [[2]], 2],
    ['a result answering another call is dropped', [call('a'), result('a'), result('zz')], [[0, 1]], 1],
    ['tool output after an assistant text is an orphan here', [{ role: 'assistant', content: 'running' }, { role: 'tool', content: 'out' }], [[0]], 1],
    ['results without ids pair by position', [{ role: 'assistant', content: '', tool_calls: [{ id: '', name: 'run', arguments: '' }] }, { role: 'tool', content: 'out' }], [[0, 1]], 0],
    ['unknown roles are dropped', [{ role: 'function', content: 'x' }, user('y')], [[1]], 1],
  ])('%s', (_, messages, order, invalid) => {
    const got = shape(messages);
    expect(got.order).toEqual(order);
    expect(got.invalid).toBe(invalid);
  });

  it('gives every call a unique id both APIs accept, and its results the same id', () => {
    const paired = pairToolCalls([call('weird id/1'), result('weird id/1'), call('c'), result('c'), call('c'), result('c'), { role: 'assistant', content: '', tool_calls: [{ id: '', name: 'x', arguments: '' }] }, { role: 'tool', content: 'o' }]);
    const ids = paired.groups.map((g) => [g[0]!.toolCalls![0]!.id, g[1]!.toolCallId]);
    expect(ids).toEqual([['weird_id_1', 'weird_id_1'], ['c', 'c'], ['c_2', 'c_2'], ['call_6_0', 'call_6_0']]);
  });

  it.each([
    ['', '{}'],
    ['{"path":"a.ts"}', '{"path":"a.ts"}'],
    ['ls -la', '{"arguments":"ls -la"}'],
    ['[1,2]', '{"arguments":"[1,2]"}'],
  ])('objectArguments(%j) is JSON text of an object', (args, expected) => {
    expect(objectArguments(args)).toBe(expected);
  });
});
