import { describe, expect, it } from 'vitest';
import { extractDefinedNames, matchDefinitions, MAX_DEFINING_FILES, taskIdentifiers } from '../../src/scoring/definitions.js';
import { buildTaskFacts } from '../../src/scoring/task-facts.js';
import { candidates } from './helpers.js';

describe('extractDefinedNames', () => {
  it.each([
    ['lib/reply.js', 'function onSendHook (reply) {}\nReply.prototype.send = function (payload) {}\nconst wrapThenable = (x) => x\nclass Reply {\n  get statusCode () { return 1 }\n}\n', ['onSendHook', 'Reply', 'wrapThenable', 'statusCode', 'send']],
    ['src/a.ts', 'export interface TokenBudget { max: number }\nexport type LevelName = string;\nexport const shapeAlignment = (r: number): number => r;\nexport class Packer {\n  async fitFiles(files: string[]): Promise<void> {\n  }\n}\n', ['fitFiles', 'TokenBudget', 'LevelName', 'Packer', 'shapeAlignment']],
    ['httpx/_decoders.py', 'class LineDecoder:\n    def decode(self, text):\n        pass\n    async def aiter_lines(self):\n        pass\nMAX_LINE = 10\n', ['decode', 'aiter_lines', 'LineDecoder', 'MAX_LINE']],
    ['context.go', 'package gin\n\ntype Context struct {\n}\n\nfunc (c *Context) ShouldBindJSON(obj any) error {\n}\nfunc New() *Engine {}\n', ['ShouldBindJSON', 'Context']],
    ['README.md', 'function notCode() {}', []],
  ])('%s', (path, content, expected) => {
    expect(extractDefinedNames(path, content).sort()).toEqual([...expected].sort());
  });
  it('keeps control keywords and short names out', () => {
    expect(extractDefinedNames('a.js', '  if (x) {\n  }\n  while (y) {\n  }\nfunction go() {}\n')).toEqual([]);
  });
});

describe('taskIdentifiers', () => {
  it('takes code-shaped words and leaves prose out', () => {
    const task = 'aiter_lines() does not return full lines. The Response object calls `decode` and setErrorHandler, see response.aiter_bytes and LineDecoder. Error handler is not called.';
    expect(taskIdentifiers(task)).toEqual(['LineDecoder', 'aiter_bytes', 'aiter_lines', 'decode', 'setErrorHandler']);
  });
});

describe('matchDefinitions', () => {
  const files = candidates({
    'httpx/_decoders.py': 'class LineDecoder:\n    def decode(self, text):\n        pass\n',
    'httpx/_models.py': 'class Response:\n    def aiter_lines(self):\n        pass\n    def decode(self):\n        pass\n',
    'tests/test_decoders.py': 'def test_line_decoder():\n    LineDecoder()\n',
  });
  it('credits the file defining a named identifier, shared names by 1 / definers', () => {
    const match = matchDefinitions(['LineDecoder', 'aiter_lines', 'decode'], files);
    expect(match.scores.get('httpx/_decoders.py')).toBeCloseTo(1, 9);
    expect(match.scores.get('httpx/_models.py')).toBeCloseTo(1, 9);
    expect(match.scores.has('tests/test_decoders.py')).toBe(false);
    expect(match.names.get('httpx/_decoders.py')).toEqual(['LineDecoder', 'decode']);
    expect(matchDefinitions(['decode'], files).scores.get('httpx/_models.py')).toBeCloseTo(0.5, 9);
  });
  it(`ignores a name defined in more than ${MAX_DEFINING_FILES} files`, () => {
    const many = candidates(Object.fromEntries(Array.from({ length: MAX_DEFINING_FILES + 1 }, (_, i) => [`m${i}.py`, 'def handle_request(self):\n    pass\n'])));
    expect(matchDefinitions(['handle_request'], many).scores.size).toBe(0);
  });
});

describe('stack frames in the task', () => {
  const paths = ['lib/route.js', 'lib/reply.js', 'httpx/_client.py', 'index.js', 'a/index.js'];
  it.each([
    ['    at Object.handler (/app/node_modules/fastify/lib/route.js:412:13)', ['lib/route.js']],
    ['  File "/usr/lib/python3.11/site-packages/httpx/_client.py", line 812, in send', ['httpx/_client.py']],
    ['at C:/work/proj/node_modules/fastify/lib/reply.js:12', ['lib/reply.js']],
    ['at /srv/app/index.js:3:1 (two index.js: ambiguous)', []],
  ])('%s', (task, expected) => {
    expect([...buildTaskFacts(task, paths).framed]).toEqual(expected);
  });
  it('a root-relative path is named, not framed', () => {
    const facts = buildTaskFacts('the crash is at lib/route.js:412', paths);
    expect([...facts.named]).toEqual(['lib/route.js']);
    expect(facts.framed.size).toBe(0);
  });
});
