import { describe, expect, it } from 'vitest';
import { firstSentences } from '../../../src/summarize/summarizers/local.js';

describe('firstSentences', () => {
  it.each([
    ['OAuth 2.1 client flow.', 1, 'OAuth 2.1 client flow.'],
    ['OAuth 2.1 client flow. Tokens are refreshed.', 1, 'OAuth 2.1 client flow.'],
    ['Reads config.yaml and index.ts files. Then stops! Why? Done.', 3, 'Reads config.yaml and index.ts files. Then stops! Why?'],
    ['Version 1.2.3 of the parser', 1, 'Version 1.2.3 of the parser'],
    ['Wait... what. Next', 2, 'Wait... what.'],
    ['', 2, ''],
  ])('%j, %i sentence(s) -> %j', (text, count, expected) => {
    expect(firstSentences(text, count)).toBe(expected);
  });
});
