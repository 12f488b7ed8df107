import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDefinitionExtractor, extractDefinitions } from '../../../src/summarize/syntax/definitions.js';
import { createSyntaxEngine } from '../../../src/summarize/syntax/engine.js';

const FIXTURES = 'test/fixtures/summarize';
const extract = createDefinitionExtractor(createSyntaxEngine());

/** kind:name@start-end, `+` exported, `-` not. */
const brief = (defs: Awaited<ReturnType<typeof extractDefinitions>>) =>
  defs?.map((d) => `${d.kind}:${d.name}@${d.startLine}-${d.endLine}${d.exported ? '+' : '-'}`);

describe('extractDefinitions', () => {
  it.each([
    ['typescript/retry.ts', ['interface:RetryOptions@9-13+', 'type:Backoff@15-15+', 'variable:DEFAULT_ATTEMPTS@17-17-', 'function:retry@20-32+', 'function:exponential@34-36-', 'class:CircuitBreaker@38-51+', 'field:failures@39-39-', 'method:constructor@40-40+', 'method:isClosed@43-45+', 'method:record@47-50+', 'function:jitter@53-53+']],
    ['tsx/button.tsx', ['interface:ButtonProps@4-7+', 'function:CounterButton@9-21+', 'variable:styles@23-23-', 'function:App@25-27+']],
    ['javascript/cart.js', ['function:total@8-14+', 'class:Cart@16-29+', 'method:constructor@17-19+', 'method:add@21-24+', 'method:size@26-28+', 'function:discount@31-33+']],
    ['python/inventory.py', ['variable:log@10-10+', 'class:OutOfStock@13-14+', 'class:Warehouse@17-38+', 'variable:name@21-21+', 'variable:stock@22-22+', 'method:add@24-27+', 'method:withdraw@29-34+', 'method:_audit@36-38-', 'function:total_stock@41-43+']],
    ['go/queue.go', ['variable:ErrFull@10-10+', 'struct:Queue@13-17+', 'interface:Pusher@20-22+', 'method:Push@21-21+', 'function:New@25-27+', 'method:Push@30-38+', 'method:pop@40-47-']],
    ['rust/ledger.rs', ['struct:Entry@7-10+', 'enum:Side@12-15+', 'trait:Balance@18-20+', 'function:balance@19-19+', 'struct:Ledger@22-24+', 'impl:Ledger@26-47+', 'method:new@28-30+', 'method:post@32-38+', 'method:by_account@40-46-', 'impl:Balance for Ledger@49-53+', 'method:balance@50-52+']],
    ['java/Library.java', ['class:Library@9-33+', 'field:books@10-10-', 'method:add@13-18+', 'method:count@20-22+', 'method:has@24-26-', 'interface:Listener@28-30+', 'method:onLend@29-29+', 'enum:State@32-32-']],
    ['csharp/Account.cs', ['namespace:Bank.Core@4-37+', 'class:Account@7-31+', 'field:_history@9-9-', 'property:Owner@11-11+', 'constructor:Account@13-16+', 'method:Deposit@19-23+', 'method:Sum@25-30-', 'interface:IAuditable@33-36+', 'method:Audit@35-35+']],
    ['cpp/matrix.cpp', ['namespace:linalg@5-39+', 'class:Matrix@8-23+', 'method:Matrix@10-10+', 'method:at@12-15+', 'method:rows@17-17+', 'struct:Shape@25-28+', 'function:multiply@31-37+']],
    ['ruby/greeter.rb', ['module:Greeting@6-31+', 'class:Greeter@8-26+', 'method:initialize@11-13+', 'method:greet@16-19+', 'method:log@23-25-', 'method:default@28-30+']],
    ['php/UserRepo.php', ['namespace:App\\Repository@4-4+', 'class:UserRepo@11-29+', 'property:$users@13-13-', 'method:find@15-18+', 'method:save@20-23+', 'method:reset@25-28-', 'function:make_repo@31-34+']],
    ['shell/deploy.sh', ['function:build@8-11+', 'function:upload@13-17+']],
  ])('%s', async (file, expected) => {
    const content = readFileSync(`${FIXTURES}/${file}`, 'utf8');
    expect(brief(await extract(file, content))).toEqual(expected);
  });

  it.each([
    ['mod.py', '__all__ = ["public_one"]\n\ndef public_one():\n    pass\n\ndef other():\n    pass\n', ['variable:__all__@1-1-', 'function:public_one@3-4+', 'function:other@6-7-']],
    ['lib.js', 'function a() {}\nfunction b() {}\nfunction c() {}\nmodule.exports = { a, renamed: b };\n', ['function:a@1-1+', 'function:b@2-2+', 'function:c@3-3-']],
    ['lib2.js', 'function a() {}\nexports.a = a;\n', ['function:a@1-1+']],
  ])('declared export lists: %s', async (file, content, expected) => {
    expect(brief(await extract(file, content))).toEqual(expected);
  });

  it('reports test suites and cases by title', async () => {
    const source = "describe('retry', () => {\n  it('works', () => {\n    run();\n  });\n});\n";
    expect(brief(await extract('a.test.ts', source))).toEqual(['suite:describe retry@1-5-', 'test:it works@2-4+']);
  });

  it('returns null for a language without a grammar', async () => {
    expect(await extractDefinitions('notes.txt', 'hello')).toBeNull();
    expect(await extractDefinitions('data.json', '{"a": 1}')).toBeNull();
  });

  it('recognises an extensionless shell script by its #! line', async () => {
    expect(brief(await extract('bin/run', '#!/bin/sh\nmain() {\n  echo hi\n}\n'))).toEqual(['function:main@2-4+']);
  });

  it('survives syntax errors and still reports what parses', async () => {
    const defs = await extract('broken.ts', 'export function ok(): number {\n  return 1;\n}\nfunction broken( {\n');
    expect(defs?.[0]).toEqual({ name: 'ok', kind: 'function', startLine: 1, endLine: 3, exported: true });
  });
});
