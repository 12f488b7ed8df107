import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractTerms, pathTerms, splitIdentifier, stem } from '../../src/scoring/terms.js';

describe('splitIdentifier', () => {
  it.each([
    ['retryLoop', ['retry', 'loop']],
    ['retry_loop', ['retry', 'loop']],
    ['retry-loop', ['retry', 'loop']],
    ['HTTPClient', ['http', 'client']],
    ['parseJSONBody', ['parse', 'json', 'body']],
    ['base64Encode', ['base', '64', 'encode']],
    ['SCREAMING_SNAKE_CASE', ['screaming', 'snake', 'case']],
    ['src/auth/oauth.ts', ['src', 'auth', 'oauth', 'ts']],
  ])('%s -> %j', (input, expected) => {
    expect(splitIdentifier(input)).toEqual(expected);
  });
});

describe('stem', () => {
  it.each([
    ['retries', 'retry'],
    ['retrying', 'retry'],
    ['tokens', 'token'],
    ['parsing', 'pars'],
    ['parser', 'pars'],
    ['parse', 'pars'],
    ['parsed', 'pars'],
    ['running', 'run'],
    ['class', 'class'],
    ['status', 'status'],
    ['api', 'api'],
  ])('%s -> %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});

describe('extractTerms', () => {
  it('drops stopwords and numbers, keeps compound identifiers whole as well as split', () => {
    expect(extractTerms('Fix the retryLoop in 2 places')).toEqual(['retry', 'loop', 'retryloop', 'plac']);
  });
  it('skips over-long runs such as minified or base64 blobs', () => {
    expect(extractTerms(`token ${'a'.repeat(200)} budget`)).toEqual(['token', 'budget']);
  });
  it('path terms drop the extension', () => {
    expect(pathTerms('src/http/retryPolicy.ts')).toEqual(['src', 'http', 'retry', 'policy', 'retrypolicy']);
  });
  it('path terms, split per segment and remembered, equal the terms of the whole path read as words', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_$.\- ]{0,14}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const path = segments.join('/');
        const whole = extractTerms(path.replace(/\.[A-Za-z0-9]+$/, '').replace(/\//g, ' '));
        // twice: the second call answers from the segment memo
        expect(pathTerms(path)).toEqual(whole);
        expect(pathTerms(path)).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });
});
