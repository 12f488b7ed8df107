import { describe, expect, it } from 'vitest';
import { parseHistory } from '../../src/assemble/history.js';
import { locateJsonError } from '../../src/assemble/json-locate.js';
import { InputError } from '../../src/errors.js';

describe('parseHistory', () => {
  it.each([
    ['chat.json', '[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]'],
    ['chat.json', '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}'],
    ['chat.jsonl', '{"role":"user","content":"hi"}\n\n{"role":"assistant","content":"hello"}\n'],
    ['chat', '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}'],
    ['chat', '[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]'],
  ])('reads %s', (name, text) => {
    expect(parseHistory(text, name)).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('accepts a single message object', () => {
    expect(parseHistory('{"role":"user","content":"only"}', 'one.json')).toEqual([{ role: 'user', content: 'only' }]);
  });

  it('treats other text as one user message', () => {
    expect(parseHistory('[INFO] we tried X\nthen Y', 'notes.txt')).toEqual([{ role: 'user', content: '[INFO] we tried X\nthen Y' }]);
    expect(parseHistory('plain words', 'notes')).toEqual([{ role: 'user', content: 'plain words' }]);
    expect(parseHistory('  \n', 'empty.txt')).toEqual([]);
  });

  it('keeps tool calls, tool_call_id and text content parts', () => {
    const text = JSON.stringify([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
    ]);
    expect(parseHistory(text, 'h.json')).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'read', arguments: '{"p":1}' }] },
      { role: 'tool', content: 'a\nb', tool_call_id: 'c1' },
    ]);
  });

  it.each([
    ['h.json', '[\n  {"role": "user", "content": "hi"},\n  {"role": "user" "content": "x"}\n]', /^h\.json: invalid JSON at line 3, column 19/],
    ['h.jsonl', '{"role":"user","content":"a"}\n{"role":"user","content":\n', /^h\.jsonl: invalid JSON at line 2/],
    ['h.json', '{"messages": 3}', /expected an array of messages/],
    ['h.json', '[{"content":"x"}]', /h\.json: message 1 has no "role" string/],
    ['h.json', '[{"role":"user","content":5}]', /message 1 has a "content" that is neither text/],
    ['h', '{"role":"user",', /^h: invalid JSON at line 1/],
  ])('rejects bad input in %s with the file and line', (name, text, message) => {
    expect(() => parseHistory(text, name)).toThrow(InputError);
    expect(() => parseHistory(text, name)).toThrow(message);
  });
});

describe('locateJsonError', () => {
  it.each([
    ['{"a": [1, 2, 3], "b": {"c": null, "d": true, "e": "x\\u00e9"}}', null],
    ['[1,\n2,,3]', { line: 2, column: 3 }],
    ['{"a" 1}', { line: 1, column: 6 }],
    ['"unterminated', { line: 1, column: 14 }],
    ['[1] x', { line: 1, column: 5 }],
  ])('%j', (text, expected) => {
    expect(locateJsonError(text)).toEqual(expected);
  });
});
