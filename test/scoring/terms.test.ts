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
});
